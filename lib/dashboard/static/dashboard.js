// Progressive enhancement for the dashboard: every page works without it.
(function () {
  'use strict';
  // Forms that ask first (publish, rotate secret).
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
  // A button that says what is happening while a slow form is sent (create waits for the page check).
  document.querySelectorAll('button[data-busy]').forEach(function (button) {
    button.form.addEventListener('submit', function () {
      setTimeout(function () {
        button.disabled = true;
        button.textContent = button.getAttribute('data-busy');
      }, 0);
    });
  });
  // Copy buttons.
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () {
      var text = document.getElementById(button.getAttribute('data-copy')).textContent;
      var done = function () {
        button.textContent = 'Copied';
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
      else {
        var range = document.createRange();
        range.selectNodeContents(document.getElementById(button.getAttribute('data-copy')));
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (document.execCommand('copy')) done();
      }
    });
  });
  // The scene editor: a picked screenshot or voice is shown in its summary at once (the form posts it either way).
  document.querySelectorAll('.picker input[type=radio]').forEach(function (radio) {
    radio.addEventListener('change', function () {
      var summary = radio.closest('details').querySelector('summary');
      var choice = radio.closest('label');
      var thumb = summary.querySelector('.thumb');
      var picture = choice.querySelector('img');
      if (thumb && thumb.tagName === 'IMG' && picture) thumb.src = picture.src;
      summary.querySelector('.choice-label').textContent = choice.querySelector('.choice-label').textContent;
    });
  });
  // The campaign page: progress moves while you look; a new state, a newly ready video or an edit's render ending
  // reloads the page. A campaign in review is polled only while one of its videos renders an edit.
  var card = document.getElementById('progress-card');
  if (card) {
    var url = card.getAttribute('data-status-url');
    var status = card.getAttribute('data-status');
    var ready = Number(card.getAttribute('data-ready'));
    var rendering = Number(card.getAttribute('data-rendering'));
    var finished = { published: true, failed: true };
    var polled = function (state, renderingNow) {
      return !finished[state] && (state !== 'review' || renderingNow > 0);
    };
    var poll = function () {
      fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (res) {
          return res.ok ? res.json() : null;
        })
        .then(function (body) {
          if (!body) return;
          document.getElementById('campaign-progress').value = body.progress;
          document.getElementById('campaign-progress-text').textContent = body.progress + '%';
          var statusEl = document.getElementById('campaign-status');
          statusEl.textContent = body.status_label || body.status;
          if (body.status !== status || body.ready !== ready) {
            window.location.reload();
            return;
          }
          if (polled(body.status, body.rendering)) setTimeout(poll, 2000);
        })
        .catch(function () {
          setTimeout(poll, 5000);
        });
    };
    if (polled(status, rendering)) setTimeout(poll, 2000);
  }
  // The campaign side (services/dashboard/campaign-pages.ts): what only helps with JavaScript on.
  document.documentElement.classList.add('js');
  // New campaign: a voice picker only for the languages ticked.
  var voicePickers = document.querySelectorAll('.voice-language');
  if (voicePickers.length) {
    var showChosenVoices = function () {
      voicePickers.forEach(function (picker) {
        var box = document.querySelector('input[name=languages][value="' + picker.getAttribute('data-language') + '"]');
        picker.hidden = !(box && box.checked);
      });
    };
    document.querySelectorAll('input[name=languages]').forEach(function (box) {
      box.addEventListener('change', showChosenVoices);
    });
    showChosenVoices();
    // One sample at a time.
    document.addEventListener(
      'play',
      function (event) {
        document.querySelectorAll('.voice-options audio').forEach(function (audio) {
          if (audio !== event.target) audio.pause();
        });
      },
      true,
    );
  }
  // New campaign: another metadata row, up to the schema's number of pairs.
  document.querySelectorAll('fieldset.pairs').forEach(function (fieldset) {
    var rows = fieldset.querySelector('.pair-rows');
    var max = Number(fieldset.getAttribute('data-max-rows'));
    var add = document.createElement('button');
    add.type = 'button';
    add.className = 'secondary small add-row';
    add.textContent = '+ Add a row';
    add.addEventListener('click', function () {
      var count = rows.children.length;
      if (count >= max) return;
      var row = rows.lastElementChild.cloneNode(true);
      row.querySelectorAll('input').forEach(function (input) {
        input.value = '';
        input.setAttribute('aria-label', input.getAttribute('aria-label').replace(/\d+$/, String(count + 1)));
      });
      rows.appendChild(row);
      row.querySelector('input').focus();
      if (count + 1 >= max) add.disabled = true;
    });
    fieldset.appendChild(add);
  });
  // The campaigns list and a batch's page: each generating campaign's status and progress move while you look.
  var table = document.querySelector('table[data-live-url]');
  if (table) {
    var generating = { collecting: true, processing: true, scripting: true, voiceover: true, rendering: true };
    var anyGenerating = function () {
      return Array.prototype.some.call(table.querySelectorAll('.live-status'), function (el) {
        return generating[el.getAttribute('data-status')];
      });
    };
    var refresh = function () {
      fetch(table.getAttribute('data-live-url'), { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (res) {
          return res.ok ? res.json() : null;
        })
        .then(function (body) {
          if (!body) return;
          body.campaigns.forEach(function (c) {
            var row = table.querySelector('tr[data-campaign-id="' + c.campaign_id + '"]');
            if (!row) return;
            var statusEl = row.querySelector('.live-status');
            statusEl.textContent = c.status_label;
            statusEl.setAttribute('data-status', c.status);
            statusEl.className = 'status status-' + c.status + ' live-status';
            row.querySelector('.live-progress').value = c.progress;
            row.querySelector('.live-progress-text').textContent = c.progress + '%';
          });
          // A batch's page: its counts in words and its progress too.
          if (body.summary) {
            document.getElementById('batch-counts').textContent = body.summary.counts_words;
            document.getElementById('batch-progress').value = body.summary.progress;
            document.getElementById('batch-settled').textContent = body.summary.settled + ' of ' + body.summary.total;
          }
          if (anyGenerating()) setTimeout(refresh, 2000);
        })
        .catch(function () {
          setTimeout(refresh, 5000);
        });
    };
    if (anyGenerating()) setTimeout(refresh, 2000);
  }
})();

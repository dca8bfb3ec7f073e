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
          statusEl.textContent = body.status;
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
})();

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
  // The campaign page: progress moves while you look; a new state or a newly ready video reloads the page.
  var card = document.getElementById('progress-card');
  if (card) {
    var url = card.getAttribute('data-status-url');
    var status = card.getAttribute('data-status');
    var ready = Number(card.getAttribute('data-ready'));
    var finished = { published: true, failed: true };
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
          if (!finished[body.status] && body.status !== 'review') setTimeout(poll, 2000);
        })
        .catch(function () {
          setTimeout(poll, 5000);
        });
    };
    if (!finished[status] && status !== 'review') setTimeout(poll, 2000);
  }
})();

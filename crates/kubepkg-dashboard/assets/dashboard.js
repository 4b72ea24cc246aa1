// kubepkg dashboard: live updates. The page is complete without this script; with it, the
// state of each element marked data-live-key follows the server-sent events of the path in
// <body data-live>, which the server sends when a Kubernetes watch sees a change.
(function () {
  'use strict';
  var path = document.body.getAttribute('data-live');
  if (!path || !window.EventSource) {
    return;
  }
  var status = document.getElementById('live-status');
  var say = function (text) {
    if (status) {
      status.textContent = text;
    }
  };
  var source = new EventSource(path);
  source.addEventListener('open', function () {
    say('Live: this page follows the cluster.');
  });
  source.addEventListener('error', function () {
    say('Live updates interrupted; reconnecting…');
  });
  source.addEventListener('problem', function (e) {
    say('Live updates: ' + e.data);
  });
  source.addEventListener('state', function (e) {
    var rows = JSON.parse(e.data);
    var elements = document.querySelectorAll('[data-live-key]');
    var changed = [];
    var unknown = false;
    rows.forEach(function (row) {
      var found = false;
      elements.forEach(function (el) {
        if (el.getAttribute('data-live-key') !== row.key) {
          return;
        }
        found = true;
        var badge = el.querySelector('.badge');
        if (badge) {
          if (badge.getAttribute('data-state') !== row.state) {
            changed.push(row.key + ' is ' + row.label);
          }
          badge.setAttribute('data-state', row.state);
          badge.querySelector('[aria-hidden]').textContent = row.symbol;
          badge.querySelector('.word').textContent = row.label;
        }
        var waits = el.querySelector('.waits');
        if (waits) {
          waits.textContent = row.detail;
        }
      });
      unknown = unknown || !found;
    });
    if (changed.length > 0) {
      say('Updated: ' + changed.join(', ') + '.');
    }
    if (unknown && document.querySelector('table.packages')) {
      say('A package was added: reload the page to list it.');
    }
  });
}());

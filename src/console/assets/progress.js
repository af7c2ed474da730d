// Live progress of background work (imports, sends): an element with data-poll="<url>" asks the URL for JSON every
// second and writes each value into the element inside it with data-field="<name>" (a <progress> gets its value).
// When the answer says finished, the page reloads once to show the final report. Without it the page shows the
// state it was rendered with and a reload shows the current one.
(function () {
  'use strict';
  var box = document.querySelector('[data-poll]');
  if (!box || !window.fetch) return;
  var fetch = window.fetch.bind(window);
  var url = box.getAttribute('data-poll');
  function apply(data) {
    box.querySelectorAll('[data-field]').forEach(function (el) {
      var value = data[el.getAttribute('data-field')];
      if (value === undefined || value === null) return;
      if (el.tagName === 'PROGRESS') el.value = Number(value);
      else el.textContent = typeof value === 'number' ? value.toLocaleString('en') : String(value);
    });
  }
  function tick() {
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (data) {
        if (!data) return;
        apply(data);
        if (data.finished) window.location.reload();
        else setTimeout(tick, 1000);
      })
      .catch(function () {
        setTimeout(tick, 3000);
      });
  }
  setTimeout(tick, 1000);
})();

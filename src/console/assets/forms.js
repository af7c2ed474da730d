// The forms pages' enhancements; each page works without them. The builder refreshes its preview as you type and
// lets components be dragged into a new order; the responses page shows the progress of a CSV export.
(function () {
  'use strict';
  var builder = document.getElementById('builder-form');
  var previewButton = document.getElementById('preview-button');
  if (builder && previewButton) {
    var timer = null;
    var refresh = function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        builder.requestSubmit(previewButton);
      }, 400);
    };
    builder.addEventListener('input', refresh);
    builder.addEventListener('change', refresh);
    previewButton.hidden = true;
    refresh();
    var list = document.getElementById('components');
    var dragged = null;
    if (list) {
      list.addEventListener('dragstart', function (e) {
        dragged = e.target instanceof Element ? e.target.closest('.component') : null;
        if (dragged) dragged.classList.add('dragging');
      });
      list.addEventListener('dragend', function () {
        if (dragged) dragged.classList.remove('dragging');
        dragged = null;
      });
      list.addEventListener('dragover', function (e) {
        if (dragged) e.preventDefault();
      });
      list.addEventListener('drop', function (e) {
        var target = e.target instanceof Element ? e.target.closest('.component') : null;
        if (!dragged || !target || target === dragged) return;
        e.preventDefault();
        var op = document.createElement('button');
        op.type = 'submit';
        op.name = 'op';
        op.value = 'moveto:' + dragged.getAttribute('data-index') + ':' + target.getAttribute('data-index');
        op.hidden = true;
        builder.appendChild(op);
        builder.requestSubmit(op);
      });
    }
  }
  // A link with data-progress="<expected rows>" downloads with a progress bar counting the rows received.
  document.addEventListener('click', function (event) {
    var link = event.target instanceof Element ? event.target.closest('a[data-progress]') : null;
    if (!link || !window.fetch || !window.ReadableStream) return;
    var status = document.getElementById(link.getAttribute('aria-controls'));
    if (!status) return;
    event.preventDefault();
    var expected = Number(link.getAttribute('data-progress')) || 0;
    var bar = status.querySelector('progress');
    var text = status.querySelector('span');
    status.hidden = false;
    window.fetch(link.href, { credentials: 'same-origin' }).then(function (res) {
      if (!res.ok || !res.body) {
        text.textContent = 'The export failed (' + res.status + ').';
        return;
      }
      var reader = res.body.getReader();
      var chunks = [];
      var rows = 0;
      var pump = function () {
        return reader.read().then(function (step) {
          if (step.done) {
            var a = document.createElement('a');
            a.href = URL.createObjectURL(new window.Blob(chunks, { type: 'text/csv' }));
            a.download = link.getAttribute('download') || 'submissions.csv';
            document.body.appendChild(a);
            a.click();
            a.remove();
            bar.value = bar.max;
            text.textContent = 'Done: ' + Math.max(rows - 1, 0) + ' responses.';
            return;
          }
          chunks.push(step.value);
          for (var i = 0; i < step.value.length; i++) if (step.value[i] === 10) rows++;
          bar.max = expected + 1;
          bar.value = Math.min(rows, expected + 1);
          text.textContent = Math.max(rows - 1, 0) + ' of ' + expected + ' responses';
          return pump();
        });
      };
      return pump();
    });
  });
})();

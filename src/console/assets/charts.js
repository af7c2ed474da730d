// Draws every <figure data-chart="..."> with uPlot (served from the installation). The figure's table stays for
// screen readers and for browsers without script; the chart is drawn beside it.
(function () {
  'use strict';
  var COLOURS = ['#1f5fa8', '#2e7d32', '#c77700', '#b3261e', '#6a1b9a', '#00838f'];
  // One point alone would get an axis of years; give it an hour (or one step of an hours axis) either side.
  function xScale(xs, hours) {
    var pad = hours ? 1 : 3600;
    var scale = { time: !hours };
    if (xs.length === 1) scale.range = [xs[0] - pad, xs[0] + pad];
    return scale;
  }
  function draw(figure) {
    if (typeof window.uPlot !== 'function') return;
    var spec = JSON.parse(figure.getAttribute('data-chart'));
    var holder = figure.querySelector('.chart-canvas');
    if (!holder) return;
    var width = Math.max(280, Math.min(holder.clientWidth || 600, 900));
    // The legend shows the hovered point, and the latest one when nothing is hovered (rather than "--").
    var last = spec.x.length - 1;
    function at(idx) {
      return idx === null || idx === undefined ? last : idx;
    }
    var xTexts = spec.xTexts || [];
    var series = [
      {
        label: spec.xHeader || 'Day',
        value: function (u, v, sidx, idx) {
          var i = at(idx);
          return i < 0 ? '' : xTexts[i] !== undefined ? xTexts[i] : String(spec.x[i]);
        },
      },
    ].concat(
      spec.series.map(function (s, i) {
        return {
          label: s.label,
          stroke: COLOURS[i % COLOURS.length],
          width: 2,
          points: { show: true },
          value: function (u, v, sidx, idx) {
            var n = s.values[at(idx)];
            return n === undefined || n === null ? '' : String(n);
          },
        };
      }),
    );
    var data = [
      spec.x.map(function (x) {
        return spec.hours ? x / 3600000 : x / 1000;
      }),
    ].concat(
      spec.series.map(function (s) {
        return s.values;
      }),
    );
    holder.textContent = '';
    new window.uPlot(
      {
        width: width,
        height: 220,
        series: series,
        scales: { x: xScale(data[0], spec.hours) },
        axes: [spec.hours ? { label: 'Hours after the start' } : {}, { label: spec.yLabel || '' }],
      },
      data,
      holder,
    );
    figure.classList.add('chart-drawn');
  }
  function all() {
    var figures = document.querySelectorAll('figure[data-chart]');
    for (var i = 0; i < figures.length; i++) draw(figures[i]);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all);
  else all();
  // Redrawn at the new width when the window changes size (a phone turned, a window narrowed).
  var timer = null;
  var drawnWidth = window.innerWidth;
  window.addEventListener('resize', function () {
    if (window.innerWidth === drawnWidth) return;
    drawnWidth = window.innerWidth;
    clearTimeout(timer);
    timer = setTimeout(all, 150);
  });
})();

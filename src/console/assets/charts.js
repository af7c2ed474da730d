// Draws every <figure data-chart="..."> with uPlot (served from the installation). The figure's table stays for
// screen readers and for browsers without script; the chart is drawn beside it.
(function () {
  'use strict';
  var COLOURS = ['#1f5fa8', '#2e7d32', '#c77700', '#b3261e', '#6a1b9a', '#00838f'];
  function draw(figure) {
    if (typeof window.uPlot !== 'function') return;
    var spec = JSON.parse(figure.getAttribute('data-chart'));
    var holder = figure.querySelector('.chart-canvas');
    if (!holder) return;
    var width = Math.max(280, Math.min(holder.clientWidth || 600, 900));
    var series = [{}].concat(
      spec.series.map(function (s, i) {
        return { label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, points: { show: true } };
      }),
    );
    var data = [
      spec.x.map(function (ms) {
        return ms / 1000;
      }),
    ].concat(
      spec.series.map(function (s) {
        return s.values;
      }),
    );
    holder.textContent = '';
    new window.uPlot(
      { width: width, height: 220, series: series, axes: [{}, { label: spec.yLabel || '' }] },
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
})();

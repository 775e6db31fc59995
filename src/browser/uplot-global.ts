// uPlot as its own script (/ui/uplot.js), loaded once the dashboard is shown: the login
// form's script stays small (first paint within 300 ms: docs/performance.md) and a page that never
// logs in never fetches the chart library.
import uPlot from 'uplot';

(window as unknown as { uPlot: typeof uPlot }).uPlot = uPlot;

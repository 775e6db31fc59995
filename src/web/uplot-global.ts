// uPlot as its own script (/ui/uplot.js), loaded once the dashboard is shown: the login
// form's script stays small (first paint, issue 24's 300 ms budget) and a page that never
// logs in never fetches the chart library.
import uPlot from 'uplot';

(window as unknown as { uPlot: typeof uPlot }).uPlot = uPlot;

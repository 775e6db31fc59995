// The web interface's files as the agent serves them: name, path, content type.
export const PAGE_FILES = ['index.html', 'app.js', 'uplot.js', 'app.css'] as const;
export type PageFile = (typeof PAGE_FILES)[number];

export const TYPES: Record<PageFile, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'uplot.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

// The /docs page: Swagger UI on the agent's own document, every file from the agent.

/** No inline script, no other host: the page runs under a strict policy. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>device-agent API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/start.js"></script>
</body>
</html>
`;

export const START_SCRIPT = `// Starts Swagger UI on this agent's document.
window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  // The default would show a badge fetched from validator.swagger.io.
  validatorUrl: null,
  deepLinking: true,
  displayRequestDuration: true,
  // The token stays in the page's memory only; a reload asks for it again.
  persistAuthorization: false,
});
`;

// The names of the /docs page's files (the route's parameter, in the document), apart from
// their bytes (assets.ts), which load with the first request for the page.
import SWAGGER_FILES from './swagger-files.json' with { type: 'json' };

export const ASSET_NAMES = [...SWAGGER_FILES, 'start.js'] as const;

// rclone against an S3 store, configured by environment alone (no config file): the remote
// `store:`. Shared by bench/outbox.mjs (rclone copy beside the outbox) and test/helpers/s3.ts.

/** The environment for `rclone ... store:BUCKET/...` against `endpoint` (path-style, us-east-1). */
export function rcloneEnv(endpoint, accessKeyId, secretAccessKey) {
  // AWS_CA_BUNDLE from the environment would make rclone load a CA for a plain-HTTP store.
  const { AWS_CA_BUNDLE: _ca, ...inherited } = process.env;
  return {
    ...inherited,
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_STORE_TYPE: 's3',
    RCLONE_CONFIG_STORE_PROVIDER: 'Other',
    RCLONE_CONFIG_STORE_ENDPOINT: endpoint,
    RCLONE_CONFIG_STORE_ACCESS_KEY_ID: accessKeyId,
    RCLONE_CONFIG_STORE_SECRET_ACCESS_KEY: secretAccessKey,
    RCLONE_CONFIG_STORE_FORCE_PATH_STYLE: 'true',
    RCLONE_CONFIG_STORE_REGION: 'us-east-1',
  };
}

// Types of rclone.mjs, for the tests (TypeScript does not check the bench's .mjs files).
export function rcloneEnv(endpoint: string, accessKeyId: string, secretAccessKey: string): NodeJS.ProcessEnv;

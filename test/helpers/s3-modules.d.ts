// The two test-only packages without their own types (test/helpers/s3.ts), as far as it uses them.
declare module 'aws4' {
  interface Signed {
    headers?: Record<string, string>;
  }
  const aws4: { sign(request: Record<string, unknown>, credentials: { accessKeyId: string; secretAccessKey: string }): Signed };
  export default aws4;
}
declare module 's3rver' {
  export default class S3rver {
    constructor(options: Record<string, unknown>);
    run(): Promise<unknown>;
    close(): Promise<void>;
  }
}

// device-agent-client: a typed client of the device agent's HTTP API.
export { DeviceAgent } from './client.ts';
export type { DeviceAgentOptions, Download, DownloadOptions, Progress, UploadOptions, UploadSource } from './client.ts';
export { controlFile } from './download.ts';
export type { DownloadHead, DownloadToFileOptions, SavedFile } from './download.ts';
export { ApiError, ConnectionError, TrustError } from './errors.ts';
export type { UploadPart } from './multipart.ts';
export { isPin, peerCertificate, spkiPin } from './trust.ts';
export type { PeerCertificate, Trust } from './trust.ts';
export type * from './types.ts';

// Generated from the agent's /docs/openapi.json by `npm run gen -w client`: do not edit.
// test/client-types.test.ts fails when the document an agent serves and this file differ.
export interface paths {
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The web interface (no token: it logs in through the API) */
        get: operations["webPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download one file
         * @description The file must lie inside the download base directory and the credential's directory (symlinks are followed and confined), be a regular, readable, non-empty file of at most 50 MB. One `Range` is honoured.
         */
        get: operations["download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Headers of a download, without the body
         * @description The file must lie inside the download base directory and the credential's directory (symlinks are followed and confined), be a regular, readable, non-empty file of at most 50 MB. One `Range` is honoured.
         */
        head: operations["downloadHead"];
        patch?: never;
        trace?: never;
    };
    "/api/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload one or more files
         * @description Atomic: the data goes to a temporary file and replaces the target only when complete. The target directory must exist and lie inside the credential's directory. Created files get mode 0644. At most 50 MB in total (`maxFileBytes`).
         */
        post: operations["upload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agentusers/loginusertoagent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Obtain a bearer token
         * @description After 10 failed logins within 15 minutes for one (address, username), the answer is 429 until the window passes, even for the right password.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audio/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The ALSA capture devices present now
         * @description What `arecord -L` lists (ALSA's device hints: sound cards and PCMs of the ALSA configuration), asked afresh on each request, so a microphone plugged in after the start is listed at once. `id` is what `audio.device` and a start's `device` take; `configured` is `audio.device`.
         */
        get: operations["audioDevices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audio/level": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Peak and RMS level of a device's input
         * @description Measures `seconds` of the device's input; while a recording or a live stream runs on the device, from that capture (no second opening of the device). Levels in dBFS (0 is full scale; silence reads -120); `clipped` when a sample reached full scale.
         */
        get: operations["audioLevel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audio/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Listen: the device's input as it is captured
         * @description Streams for as long as the client reads. `wav` is the PCM behind a header whose lengths say "unknown" (players read to the end); `flac` and `mp3` are encoded as they go. A recording on the same device shares its capture. At most 4 streams, 2 of them for one user (all their tokens and sessions); a client that stops reading is dropped; a stream ends when its credential expires or is revoked, and when the agent stops. `curl -H "Authorization: Bearer $T" ".../api/v1/audio/live?format=wav" | ffplay -`
         */
        get: operations["audioLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audiofiles/audiorecordstart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an audio recording */
        post: operations["recordStart"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audiofiles/audiorecordstatus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Status of the ongoing or last recording */
        get: operations["recordStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audiofiles/audiorecordstop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End the running recording now
         * @description The encoder finalizes the file; the record is `finished` with the length actually recorded in `durationSeconds` and `stoppedBy` "request".
         */
        post: operations["recordStop"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devicestatus/get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Current device status */
        get: operations["deviceStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server-Sent Events: status and recording as they change
         * @description A `text/event-stream` that stays open. On connect: a `recording` event (the RecordingStatus record) and a `status` event (the DeviceStatus record); then `status` every 2 s (one refresh shared by all streams), `recording` at every state change, and a comment line at least every 15 s; `level` (`{"device", "peakDbfs", "rmsDbfs"}`) at most every 100 ms (with the chunks of sound: 5-8 a second at any rate) for each device being captured (a recording, a live stream or a level measurement runs). Each event is `event: <name>` and one `data: <JSON>` line. At most 32 streams are open at once, 16 of them for one user (all their tokens and sessions). A stream ends when its credential expires or is revoked, and when the agent shuts down. Browsers read it with `fetch` and the bearer header (`EventSource` cannot send it).
         */
        get: operations["events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a file, a link or a directory
         * @description Paths are relative to the download base directory and confined exactly as a download: a path that leads outside the base or the credential's directory, also through links, is 403. The base directory (and the credential's directory) itself can be neither deleted nor moved. FIFOs, sockets and devices are refused (403). A link is removed itself, never what it points to. A directory must be empty unless `recursive=true`; a recursive delete never follows a link.
         */
        delete: operations["deleteFile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List one directory of the download base
         * @description Confined exactly as a download. Directories first, then by name in byte order. Links that stay inside are listed as what they point to; links whose real location is outside the base, dangling links, FIFOs, sockets and devices are left out. At most 10000 entries are read from one directory: a larger one is listed in part and the answer carries `"truncated": true`.
         */
        get: operations["listFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files/mkdir": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a directory, and its parents as needed
         * @description Paths are relative to the download base directory and confined exactly as a download: a path that leads outside the base or the credential's directory, also through links, is 403. The base directory (and the credential's directory) itself can be neither deleted nor moved. FIFOs, sockets and devices are refused (403). New directories get mode 0755.
         */
        post: operations["makeDirectory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/files/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move or rename a file, a link or a directory
         * @description Paths are relative to the download base directory and confined exactly as a download: a path that leads outside the base or the credential's directory, also through links, is 403. The base directory (and the credential's directory) itself can be neither deleted nor moved. FIFOs, sockets and devices are refused (403). The target appears whole or not at all: a rename, or across file systems a copy under a temporary name beside the target, renamed into place, after which the source is removed.
         */
        post: operations["moveFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and version */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mqtt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The MQTT link: connected or not, since when, the last error */
        get: operations["mqttStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/outbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The outbox's state: pending, set-aside and uploaded files, the target's last error and next attempt */
        get: operations["outboxState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/outbox/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start the next attempt now, set-aside files included */
        post: operations["outboxRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stored schedule (defaults filled in) and what it does now */
        get: operations["scheduleGet"];
        /** Store a schedule; it applies at once */
        put: operations["scheduleSet"];
        post?: never;
        /** Remove the schedule; a running segment ends and is kept */
        delete: operations["scheduleClear"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedule/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stored schedule's merged windows that begin on the days asked, computed as the recorder will */
        get: operations["schedulePreview"];
        put?: never;
        /** The preview of a schedule not yet stored */
        post: operations["schedulePreviewProposed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The HTTPS certificate: fingerprint, SPKI pin, names, validity
         * @description No token: a client reads it to decide whether to trust the device (compare the fingerprint with `device-agent tls show` on the device).
         */
        get: operations["tls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's API tokens (with `admin`: everyone's) */
        get: operations["listTokens"];
        put?: never;
        /**
         * Make an API token (its text is shown this once)
         * @description A long-lived credential for a script: `Authorization: Bearer dat_...`. Its rights are those asked for (default: the caller's), intersected at every request with its user's current ones. Only its SHA-256 is stored. Its scopes and directory never exceed the caller's, nor its user's.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API token (refused within 2 s everywhere) */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The users, their roles and directories (changed by the CLI only) */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This page (Swagger UI) */
        get: operations["docsPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file of the page */
        get: operations["docsAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI document */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text format 0.0.4)
         * @description For a scraper: a credential with scope `metrics`, or the text of `metrics.tokenFile` (which opens this route and no other). Absent (404) when `metrics.enabled` is false.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file of the web interface */
        get: operations["webFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AudioDevices: {
            /** @description audio.device of the config */
            configured: string;
            devices: {
                /** @description ALSA's default device */
                default: boolean;
                description: string;
                /** @description what audio.device and a start's `device` take */
                id: string;
                name: string;
            }[];
        };
        AudioLevel: {
            /** @description a sample reached full scale */
            clipped: boolean;
            device: string;
            /** @description dBFS; digital silence reads -120 */
            peakDbfs: number;
            rmsDbfs: number;
            seconds: number;
        };
        /** @description Figures are at most 2 seconds old; null where a figure is unknown on this device. */
        DeviceStatus: {
            agent: {
                uptimeSeconds: number;
                version: string;
            };
            arch: string;
            clock: {
                /** @description a time service set the clock (the kernel flag, systemd-timesyncd, or clock.syncedFile when configured) */
                synchronized: boolean;
            };
            cpu: {
                cores: number;
                loadPercent: number | null;
                model: string;
                temperatureCelsius: number | null;
            };
            /** @description the config key deviceId (default: the short hostname) */
            deviceId: string;
            disk: {
                availableBytes: number | null;
                /** @description the filesystem holding the download base directory */
                path: string;
                totalBytes: number | null;
                usedBytes: number | null;
            };
            distro: string;
            hostname: string;
            kernel: string;
            memory: {
                availableBytes: number | null;
                totalBytes: number | null;
                usedBytes: number | null;
            };
            network: {
                iface: string;
                ipv4: string[];
                ipv6: string[];
                mac: string | null;
            }[];
            platform: string;
            recording: {
                /** @enum {unknown} */
                state: "idle" | "recording" | "finished" | "failed";
            };
            release: string;
            /** Format: date-time */
            time: string;
            uptimeSeconds: number;
        };
        Error: {
            /** @description What went wrong, in the exact text the spec fixes. */
            error: string;
        };
        FileList: {
            entries: {
                /** Format: date-time */
                modifiedAt: string;
                name: string;
                /** @description null for a directory */
                sizeBytes: number | null;
                /** @enum {unknown} */
                type: "file" | "directory";
                /** @description with the outbox on only: the file is verified in central storage; null outside outbox.paths and for directories */
                uploaded?: boolean | null;
            }[];
            /** @description the directory relative to the base, `""` for the base itself */
            path: string;
            /**
             * @description present when the directory holds more than 10000 entries
             * @constant
             */
            truncated?: true;
        };
        FilePath: {
            /** @description relative to the base directory, normalised (`""` for the base itself) */
            path: string;
        };
        Health: {
            /** @constant */
            status: "ok";
            /** @description agent version */
            version: string;
        };
        LoginResponse: {
            /** @description JSON Web Token (HS256) to send as `Authorization: Bearer <token>` */
            token: string;
            user: {
                /** @description the directory (relative to the base) every file route is confined to; null: none */
                directory: string | null;
                /** @description user identifier */
                id: string;
                /** @enum {unknown} */
                role: "viewer" | "operator" | "admin";
                /** @description what the token may do (the role's scopes) */
                scopes: ("status" | "files:read" | "files:write" | "audio" | "metrics" | "admin")[];
                /** @description user name */
                username: string;
            };
        };
        NewToken: {
            /** Format: date-time */
            createdAt: string;
            directory: string | null;
            /**
             * Format: date-time
             * @description null: never
             */
            expiresAt: string | null;
            id: string;
            /**
             * Format: date-time
             * @description may lag up to 60 s
             */
            lastUsedAt: string | null;
            /** @description client address of the last use */
            lastUsedFrom: string | null;
            name: string;
            scopes: ("status" | "files:read" | "files:write" | "audio" | "metrics" | "admin")[];
            /** @description the token: shown this once */
            token: string;
            /** @description the user the token acts for */
            username: string;
        };
        /** @description Fields that do not apply yet are null. The last finished or failed record stays until the next start. A recording whose device failed mid-way is `failed` and still names the file of what was recorded. */
        RecordingStatus: {
            channels: number | null;
            /** @description the ALSA device recorded from */
            device: string | null;
            durationSeconds: number | null;
            error: string | null;
            /** @description relative to the download base directory: usable as `filepath` of /api/download */
            file: string | null;
            /** @enum {unknown} */
            fileExtension: "flac" | "wav" | "mp3" | null;
            /** Format: date-time */
            finishedAt: string | null;
            /** @description the loudest sample recorded, in dBFS; null until the recording ends */
            peakDbfs: number | null;
            sampleRate: number | null;
            sizeBytes: number | null;
            /** Format: date-time */
            startedAt: string | null;
            /** @enum {unknown} */
            state: "idle" | "recording" | "finished" | "failed";
            /**
             * @description what ended the recording (`disk`: free space fell below half of `audio.minFreeBytes`); null while it runs, or when the capture failed
             * @enum {unknown}
             */
            stoppedBy: "duration" | "request" | "size" | "disk" | "shutdown" | null;
        };
        /** @description The HTTPS certificate in service, or `{"enabled": false}` when the agent speaks plain HTTP only. */
        TlsInfo: {
            /** @constant */
            enabled: false;
        } | {
            /**
             * @description `required` (`tls.clientCaFile` set): every TLS client shows a certificate from one of its CAs
             * @enum {unknown}
             */
            clientCertificates: "required" | "none";
            /** @constant */
            enabled: true;
            /** @description SHA-256 of the certificate (DER), colon-separated hex pairs */
            fingerprint: string;
            /** @description DNS names and addresses the certificate names */
            names: string[];
            /** Format: date-time */
            notAfter: string;
            /** Format: date-time */
            notBefore: string;
            /** @description made by the agent (renewed with the same key 30 days before it expires) */
            selfSigned: boolean;
            /** @description SHA-256 of the public key (SPKI) in base64, as `curl --pinnedpubkey` takes it */
            spkiPin: string;
        };
        Token: {
            /** Format: date-time */
            createdAt: string;
            directory: string | null;
            /**
             * Format: date-time
             * @description null: never
             */
            expiresAt: string | null;
            id: string;
            /**
             * Format: date-time
             * @description may lag up to 60 s
             */
            lastUsedAt: string | null;
            /** @description client address of the last use */
            lastUsedFrom: string | null;
            name: string;
            scopes: ("status" | "files:read" | "files:write" | "audio" | "metrics" | "admin")[];
            /** @description the user the token acts for */
            username: string;
        };
        TokenList: {
            tokens: components["schemas"]["Token"][];
        };
        UploadForm: {
            /**
             * @description filesystem layer; `OsFs`, the only one, when absent
             * @example OsFs
             */
            fstype?: string;
            /** @description the file, or several files under this same field name */
            myFile: string | string[];
            /** @description destination path including the file name, relative to the upload base directory; ending in `/` or naming an existing directory: each file is saved inside it under its own name */
            saveToPath: string;
        };
        UploadResult: {
            /** @constant */
            message: "Uploaded successfully";
        };
        UserList: {
            users: {
                directory: string | null;
                id: string;
                /** @enum {unknown} */
                role: "viewer" | "operator" | "admin";
                username: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    webPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page; brotli or gzip as Accept-Encoding allows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description not modified (`If-None-Match` holds the ETag of this encoding) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    download: {
        parameters: {
            query: {
                /** @description path including the file name, relative to the download base directory */
                filepath: string;
                /** @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent */
                fstype?: string;
            };
            header?: {
                /** @description entity tags or `*`: 412 unless one matches (strong comparison) */
                "If-Match"?: string;
                /** @description HTTP-date: 304 when the file is not newer; ignored with `If-None-Match` */
                "If-Modified-Since"?: string;
                /** @description entity tags or `*`: 304 when one matches (weak comparison) */
                "If-None-Match"?: string;
                /** @description an ETag (strong) or the exact Last-Modified: the `Range` is honoured only when it matches, else 200 with the whole file */
                "If-Range"?: string;
                /** @description HTTP-date: 412 when the file is newer; ignored with `If-Match` */
                "If-Unmodified-Since"?: string;
                /** @description one byte range, e.g. `bytes=0-1023` */
                Range?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the whole file */
            200: {
                headers: {
                    /** @description `File Transfer` */
                    "Content-Description"?: "File Transfer";
                    /** @description `attachment; filename="<file_name>"`, plus `filename*=UTF-8''...` for a name outside printable ASCII */
                    "Content-Disposition"?: string;
                    /** @description size in bytes of the body */
                    "Content-Length"?: number;
                    /** @description `binary` */
                    "Content-Transfer-Encoding"?: "binary";
                    /** @description the type derived from the file extension; `application/octet-stream` when none */
                    "Content-Type"?: string;
                    /** @description strong entity tag of the file (inode, size, modification time) */
                    ETag?: string;
                    /** @description HTTP-date of the file's last modification */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description the requested range */
            206: {
                headers: {
                    /** @description `File Transfer` */
                    "Content-Description"?: "File Transfer";
                    /** @description `attachment; filename="<file_name>"`, plus `filename*=UTF-8''...` for a name outside printable ASCII */
                    "Content-Disposition"?: string;
                    /** @description size in bytes of the body */
                    "Content-Length"?: number;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range"?: string;
                    /** @description `binary` */
                    "Content-Transfer-Encoding"?: "binary";
                    /** @description the type derived from the file extension; `application/octet-stream` when none */
                    "Content-Type"?: string;
                    /** @description strong entity tag of the file (inode, size, modification time) */
                    ETag?: string;
                    /** @description HTTP-date of the file's last modification */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description not modified (`If-None-Match`, `If-Modified-Since`): no body */
            304: {
                headers: {
                    /** @description strong entity tag of the file (inode, size, modification time) */
                    ETag?: string;
                    /** @description HTTP-date of the file's last modification */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request: `file path is required, could not download file` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `<path> is a directory and not a file`; `file is not readable`; `file is not a regular file`; `insufficient scope: files:read is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `file not found at <path>` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `file is empty`; `precondition failed`; `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `file too large, max size is 50 MB` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Range not satisfiable: `requested range not satisfiable` */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `failed to get absolute path: <detail>`; `failed to open file: <detail>`; `failed to read file: <detail>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadHead: {
        parameters: {
            query: {
                /** @description path including the file name, relative to the download base directory */
                filepath: string;
                /** @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent */
                fstype?: string;
            };
            header?: {
                /** @description entity tags or `*`: 412 unless one matches (strong comparison) */
                "If-Match"?: string;
                /** @description HTTP-date: 304 when the file is not newer; ignored with `If-None-Match` */
                "If-Modified-Since"?: string;
                /** @description entity tags or `*`: 304 when one matches (weak comparison) */
                "If-None-Match"?: string;
                /** @description an ETag (strong) or the exact Last-Modified: the `Range` is honoured only when it matches, else 200 with the whole file */
                "If-Range"?: string;
                /** @description HTTP-date: 412 when the file is newer; ignored with `If-Match` */
                "If-Unmodified-Since"?: string;
                /** @description one byte range, e.g. `bytes=0-1023` */
                Range?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the whole file */
            200: {
                headers: {
                    /** @description `File Transfer` */
                    "Content-Description"?: "File Transfer";
                    /** @description `attachment; filename="<file_name>"`, plus `filename*=UTF-8''...` for a name outside printable ASCII */
                    "Content-Disposition"?: string;
                    /** @description size in bytes of the body */
                    "Content-Length"?: number;
                    /** @description `binary` */
                    "Content-Transfer-Encoding"?: "binary";
                    /** @description the type derived from the file extension; `application/octet-stream` when none */
                    "Content-Type"?: string;
                    /** @description strong entity tag of the file (inode, size, modification time) */
                    ETag?: string;
                    /** @description HTTP-date of the file's last modification */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description the requested range */
            206: {
                headers: {
                    /** @description `File Transfer` */
                    "Content-Description"?: "File Transfer";
                    /** @description `attachment; filename="<file_name>"`, plus `filename*=UTF-8''...` for a name outside printable ASCII */
                    "Content-Disposition"?: string;
                    /** @description size in bytes of the body */
                    "Content-Length"?: number;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range"?: string;
                    /** @description `binary` */
                    "Content-Transfer-Encoding"?: "binary";
                    /** @description the type derived from the file extension; `application/octet-stream` when none */
                    "Content-Type"?: string;
                    /** @description strong entity tag of the file (inode, size, modification time) */
                    ETag?: string;
                    /** @description HTTP-date of the file's last modification */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description not modified (`If-None-Match`, `If-Modified-Since`): no body */
            304: {
                headers: {
                    /** @description strong entity tag of the file (inode, size, modification time) */
                    ETag?: string;
                    /** @description HTTP-date of the file's last modification */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request: `file path is required, could not download file` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `<path> is a directory and not a file`; `file is not readable`; `file is not a regular file`; `insufficient scope: files:read is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `file not found at <path>` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `file is empty`; `precondition failed`; `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `file too large, max size is 50 MB` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Range not satisfiable: `requested range not satisfiable` */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `failed to get absolute path: <detail>`; `failed to open file: <detail>`; `failed to read file: <detail>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    upload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["UploadForm"];
            };
        };
        responses: {
            /** @description stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadResult"];
                };
            };
            /** @description Bad form (also: a file name that is empty, `.`, `..` or holds `/`, `\` or NUL when saving into a directory): `No save path provided`; `No files uploaded`; `Failed to parse form: file too large`; `several files need a directory as saveToPath` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `insufficient scope: files:write is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `Failed to read uploaded file`; `Failed to create file on server: <specific error message>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: password
                     * @description agent user password
                     */
                    password: string;
                    /** @description agent user name */
                    username: string;
                };
            };
        };
        responses: {
            /** @description logged in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoginResponse"];
                };
            };
            /** @description Bad request: `request body must be a JSON object (Content-Type: application/json)`; `<key> is not a field of a login`; `username is required and must be a string`; `password is required and must be a string` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Wrong password or unknown user: `invalid username or password` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 16384 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many failed logins: `too many failed logins, try again later` */
            429: {
                headers: {
                    /** @description seconds to wait before trying again */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: `too many logins in progress, try again later` */
            503: {
                headers: {
                    /** @description seconds to wait before trying again */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    audioDevices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the devices */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AudioDevices"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description arecord (alsa-utils) is missing: `<arecord is not installed ...>` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    audioLevel: {
        parameters: {
            query?: {
                /** @description a device id; default audio.device */
                device?: string;
                seconds?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the level */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AudioLevel"];
                };
            };
            /** @description A bad `seconds`, or a device that is not listed: `device must be a string`; `seconds must be a number from 0.2 to 10`; `device <id> is not an audio capture device here (GET /api/v1/audio/devices lists them)` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The device could not be opened, or refused the format: `<why the device could not be opened>` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    audioLive: {
        parameters: {
            query: {
                /** @description a device id; default audio.device */
                device?: string;
                format: "flac" | "wav" | "mp3";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the stream (`Cache-Control: no-store`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "audio/flac": string;
                    "audio/mpeg": string;
                    "audio/wav": string;
                };
            };
            /** @description A bad `format`, or a device that is not listed: `format <rule>`; `device <id> is not an audio capture device here (GET /api/v1/audio/devices lists them)` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many live streams (in all, or of this user), the agent is stopping, or the device could not be opened: `too many live audio streams (at most 4), try again later`; `too many live audio streams for this user (at most 2)`; `the agent is shutting down`; `<why the device could not be opened>` */
            503: {
                headers: {
                    /** @description seconds to wait before trying again */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    recordStart: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @default 1
                     * @enum {unknown}
                     */
                    channels?: 1 | 2;
                    /** @description a device id from GET /api/v1/audio/devices; default audio.device */
                    device?: string;
                    /** @description length of the recording in seconds; at most audio.maxDurationSeconds of the config (default 3600). A wav recording whose file would exceed maxFileBytes (the download limit) is refused (400) */
                    duration: number;
                    /**
                     * @description audio file format; flac and mp3 end when the file reaches maxFileBytes
                     * @enum {unknown}
                     */
                    fileExtension: "flac" | "wav" | "mp3";
                    /** @default 48000 */
                    sampleRate?: number;
                };
            };
        };
        responses: {
            /** @description recording started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordingStatus"];
                };
            };
            /** @description Invalid body (the text names the field), a device that is not listed, or a wav recording larger than the download limit (maxFileBytes): `request body must be a JSON object (Content-Type: application/json)`; `<key> is not a field of a recording start`; `duration must be a number of seconds above 0 and at most 3600`; `fileExtension must be one of "flac", "wav", "mp3"`; `device must be a device id from GET /api/v1/audio/devices`; `sampleRate must be an integer from 8000 to 192000`; `channels must be 1 or 2`; `device <id> is not an audio capture device here (GET /api/v1/audio/devices lists them)`; `a <d> s wav recording would be <N> MB, over the <M> MB download limit` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `a recording is already in progress`; `<device> is capturing at <rate> Hz, <n> channel(s)` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 16384 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The capture program is missing or fails, or the device refuses the format; state becomes `failed`: `<message naming the capture program, or the device and what it refused>` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The file system of the recordings directory has less free space than `audio.minFreeBytes`: `not enough free space: <N> MB free, <M> MB required` */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    recordStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the recording status record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordingStatus"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    recordStop: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the recording ended and its file is kept */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordingStatus"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `no recording is in progress` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The encoder failed while finalizing (the record is `failed`); or an unexpected failure: `the recording failed while stopping: <reason>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deviceStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the device status record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeviceStatus"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: status is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    events: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the stream: `event: recording`, `event: status`, `: keep-alive` comments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: status is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many open streams (in all, or of this user), or the agent is stopping: `too many open event streams (at most 32), try again later`; `too many event streams for this user (at most 16)`; `the agent is shutting down` */
            503: {
                headers: {
                    /** @description seconds to wait before trying again */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteFile: {
        parameters: {
            query: {
                /** @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent */
                fstype?: string;
                /** @description what to delete, relative to the download base directory */
                path: string;
                /** @description `true`: a directory with all it holds */
                recursive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A missing or unusable path, or a bad `recursive`: `fstype must be a string`; `path is required`; `path must not contain NUL`; `path must be at most 4096 bytes`; `recursive must be true or false` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `file is not a regular file`; `file is not readable`; `insufficient scope: files:write is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `file not found at <path>` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `directory is not empty` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `failed to change the file system: <detail>`; `failed to get absolute path: <detail>`; `failed to open file: <detail>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient storage: `no space left on the device` */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listFiles: {
        parameters: {
            query?: {
                /** @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent */
                fstype?: string;
                /** @description the directory, relative to the download base directory; the base itself when absent or empty */
                path?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the directory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileList"];
                };
            };
            /** @description The path names a file, or is not usable as a path: `path must be a string`; `path must not contain NUL`; `path must be at most 4096 bytes`; `fstype must be a string`; `<path> is not a directory` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `file is not readable`; `file is not a regular file`; `insufficient scope: files:read is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `file not found at <path>` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `failed to get absolute path: <detail>`; `failed to open file: <detail>`; `failed to read file: <detail>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    makeDirectory: {
        parameters: {
            query?: {
                /** @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent */
                fstype?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent
                     * @example OsFs
                     */
                    fstype?: string;
                    /** @description the directory to make, relative to the base directory; missing parents are made too */
                    path: string;
                };
            };
        };
        responses: {
            /** @description it was already a directory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilePath"];
                };
            };
            /** @description made */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilePath"];
                };
            };
            /** @description Invalid body; the text names the field: `fstype must be a string`; `request body must be a JSON object (Content-Type: application/json)`; `<key> is not a field of a directory to make`; `path must be a string`; `path must not contain NUL`; `path must be at most 4096 bytes`; `path has a name longer than 255 bytes` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `file is not a regular file`; `file is not readable`; `insufficient scope: files:write is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A file (not a directory) is in the way; the text names it: `<path> exists and is not a directory` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 16384 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `failed to change the file system: <detail>`; `failed to get absolute path: <detail>`; `failed to open file: <detail>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient storage: `no space left on the device` */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    moveFile: {
        parameters: {
            query?: {
                /** @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent */
                fstype?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description what to move, relative to the base directory (a link is moved itself) */
                    from: string;
                    /**
                     * @description filesystem layer; `OsFs` (the native filesystem), the only one, when absent
                     * @example OsFs
                     */
                    fstype?: string;
                    /**
                     * @description replace an existing `to` (a file, or an empty directory)
                     * @default false
                     */
                    overwrite?: boolean;
                    /** @description its new path, relative to the base directory; its directory must exist */
                    to: string;
                };
            };
        };
        responses: {
            /** @description moved; `path` is the new path */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilePath"];
                };
            };
            /** @description Invalid body (the text names the field), or a directory moved into itself: `fstype must be a string`; `request body must be a JSON object (Content-Type: application/json)`; `<key> is not a field of a move`; `from must be a string`; `from must not contain NUL`; `from must be at most 4096 bytes`; `to must be a string`; `to must not contain NUL`; `to must be at most 4096 bytes`; `overwrite must be true or false`; `cannot move a directory into itself` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `file path is not allowed`; `file is not a regular file`; `file is not readable`; `insufficient scope: files:write is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `file not found at <from or the directory of to>` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `to` exists (and `overwrite` is not true, or it cannot be replaced): `<to> already exists` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Precondition failed: `failed to get file system: <detail>` */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 16384 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `failed to change the file system: <detail>`; `failed to get absolute path: <detail>`; `failed to open file: <detail>`; `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient storage: `no space left on the device` */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the agent runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mqttStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the link; `{"enabled": false}` when no `mqtt` is configured */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        clientId?: string;
                        connected?: boolean;
                        enabled: boolean;
                        lastError?: {
                            text?: string;
                            /** Format: date-time */
                            time?: string;
                        } | null;
                        published?: number;
                        received?: number;
                        /** Format: date-time */
                        since?: string;
                        url?: string;
                    };
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: status is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    outboxState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the state; `{"enabled": false, "state": "off"}` with no outbox configured */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                        failed?: {
                            error: string;
                            path: string;
                            /** Format: date-time */
                            since: string;
                        }[];
                        lastError?: {
                            text: string;
                            /** Format: date-time */
                            time: string;
                        } | null;
                        /** Format: date-time */
                        lastSuccessAt?: string | null;
                        /** Format: date-time */
                        nextAttemptAt?: string | null;
                        /** Format: date-time */
                        oldestPendingAt?: string | null;
                        pending?: {
                            bytes: number;
                            files: number;
                        };
                        /** @enum {unknown} */
                        state: "idle" | "uploading" | "waiting" | "off";
                        target?: {
                            bucket?: string;
                            endpoint?: string;
                            /** @enum {unknown} */
                            type: "s3" | "presigned" | "http";
                            url?: string;
                        };
                        uploaded?: {
                            bytes: number;
                            files: number;
                        };
                    };
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: files:read is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    outboxRetry: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the attempt starts; the state as GET /api/v1/outbox gives it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                        failed?: {
                            error: string;
                            path: string;
                            /** Format: date-time */
                            since: string;
                        }[];
                        lastError?: {
                            text: string;
                            /** Format: date-time */
                            time: string;
                        } | null;
                        /** Format: date-time */
                        lastSuccessAt?: string | null;
                        /** Format: date-time */
                        nextAttemptAt?: string | null;
                        /** Format: date-time */
                        oldestPendingAt?: string | null;
                        pending?: {
                            bytes: number;
                            files: number;
                        };
                        /** @enum {unknown} */
                        state: "idle" | "uploading" | "waiting" | "off";
                        target?: {
                            bucket?: string;
                            endpoint?: string;
                            /** @enum {unknown} */
                            type: "s3" | "presigned" | "http";
                            url?: string;
                        };
                        uploaded?: {
                            bytes: number;
                            files: number;
                        };
                    };
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: files:write is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description no outbox is configured: `the outbox is off (no outbox in the config)` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    scheduleGet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the schedule (null: none) and its state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the stored document with its defaults filled in */
                        schedule?: Record<string, never> | null;
                        state?: {
                            lastSegment?: Record<string, never> | null;
                            next?: Record<string, never> | null;
                            reason?: string | null;
                            /** @enum {unknown} */
                            state?: "off" | "waiting" | "recording";
                            window?: Record<string, never> | null;
                        };
                    };
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    scheduleSet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled?: boolean;
                    location?: {
                        latitude?: number;
                        longitude?: number;
                    } | null;
                    recording?: Record<string, never>;
                    timeZone?: string | null;
                    windows?: {
                        end?: string;
                        start?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description stored: the schedule and its state, as GET */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the stored document with its defaults filled in */
                        schedule?: Record<string, never> | null;
                        state?: {
                            lastSegment?: Record<string, never> | null;
                            next?: Record<string, never> | null;
                            reason?: string | null;
                            /** @enum {unknown} */
                            state?: "off" | "waiting" | "recording";
                            window?: Record<string, never> | null;
                        };
                    };
                };
            };
            /** @description The body is not a schedule: the text names the field by path: `request body must be a JSON object (Content-Type: application/json)`; `windows[1].start: must be HH:MM or a sun event with an offset` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 65536 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    scheduleClear: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description removed (or there was none) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    schedulePreview: {
        parameters: {
            query?: {
                days?: number;
                /** @description default: today in the schedule's zone */
                from?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the windows and the windows skipped (a sun event that does not happen) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        skipped?: {
                            date?: string;
                            reason?: string;
                            window?: number;
                        }[];
                        windows?: {
                            end?: string;
                            on?: unknown[];
                            start?: string;
                        }[];
                    };
                };
            };
            /** @description Bad request: `from must be a date YYYY-MM-DD`; `days must be an integer from 1 to 366` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: `no schedule` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    schedulePreviewProposed: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    days?: number;
                    /** Format: date */
                    from?: string;
                    schedule?: {
                        enabled?: boolean;
                        location?: {
                            latitude?: number;
                            longitude?: number;
                        } | null;
                        recording?: Record<string, never>;
                        timeZone?: string | null;
                        windows?: {
                            end?: string;
                            start?: string;
                        }[];
                    };
                };
            };
        };
        responses: {
            /** @description as GET */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        skipped?: {
                            date?: string;
                            reason?: string;
                            window?: number;
                        }[];
                        windows?: {
                            end?: string;
                            on?: unknown[];
                            start?: string;
                        }[];
                    };
                };
            };
            /** @description Bad request: `request body must be a JSON object (Content-Type: application/json)`; `<key>: is not a field of a preview`; `schedule: must be a JSON object`; `schedule.windows[0].end: must be HH:MM or a sun event with an offset`; `from must be a date YYYY-MM-DD`; `days must be an integer from 1 to 366` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: audio is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 65536 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    tls: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the certificate in service, or `{"enabled": false}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TlsInfo"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the tokens, never their text or hash */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenList"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: admin is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description relative to the base; default: the caller's (for another user: the narrower of both); null: the whole base */
                    directory?: string | null;
                    /**
                     * @description null: never
                     * @default 365
                     */
                    expiresInDays?: number | null;
                    /** @description unique per user */
                    name: string;
                    /** @description default: all that the caller and the token's user both have */
                    scopes?: ("status" | "files:read" | "files:write" | "audio" | "metrics" | "admin")[];
                    /** @description admin only: make the token for this user */
                    username?: string;
                };
            };
        };
        responses: {
            /** @description made; `token` is its text, never shown again */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewToken"];
                };
            };
            /** @description A bad field; the text names it: `request body must be a JSON object (Content-Type: application/json)`; `<key> is not a field of a token`; `name must be 1-64 of A-Z a-z 0-9 . _ @ -`; `scopes must be a non-empty array of: status, files:read, files:write, audio, metrics, admin`; `directory must be a path relative to the base directory, or null`; `expiresInDays must be an integer from 1 to 3650, or null for no expiry`; `username must be a string`; `directory <dir> is not a directory inside the base directory`; `username <name> is not a user` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `a token cannot have more rights than its user`; `insufficient scope: admin is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: `a token named <name> already exists` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too large: `request body too large, max 16384 bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: `the device clock is not set` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: admin is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such token, or another user's without `admin`: `token not found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the users */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserList"];
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: admin is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    docsPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    docsAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "swagger-ui-bundle.js" | "swagger-ui.css" | "start.js";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                    "text/javascript": string;
                };
            };
            /** @description not modified (`If-None-Match`) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not found: `not found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            /** @description Missing, malformed, forged, expired or revoked token: `missing bearer token`; `malformed authorization header, expected: Bearer <token>`; `invalid token`; `token expired`; `token revoked` */
            401: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden (the credential lacks the scope, or the path is outside its directory): `insufficient scope: metrics is required` */
            403: {
                headers: {
                    /** @description `Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    webFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "app.js" | "uplot.js" | "app.css";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file; brotli or gzip as Accept-Encoding allows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                    "text/javascript": string;
                };
            };
            /** @description not modified (`If-None-Match` holds the ETag of this encoding) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not found: `not found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure (detail only in the log): `internal error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}

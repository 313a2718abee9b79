#!/usr/bin/env bash
# Build @health-partner/sdk, pack it as it would be published, install the tarball in an empty
# project (as a partner would: npm install ./health-partner-sdk-<version>.tgz), and use it there from
# plain Node (ESM) and from TypeScript, with no access to this repository's sources.
set -euo pipefail
cd "$(dirname "$0")/.."
repo_bin="$(cd ../.. && pwd)/node_modules/.bin"
npm run build --silent
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(npm pack --silent --pack-destination "$work")"
cd "$work"
npm init -y >/dev/null
npm pkg set type=module >/dev/null
npm install --prefer-offline --no-audit --no-fund --silent "./$tarball"
cat > consumer.ts <<'TS'
import { createPartnerClient, verifyWebhook, DeliveryDeduplicator, ApiError, type PartnerClient } from '@health-partner/sdk';
import type { Patient } from '@medplum/fhirtypes';
const client: PartnerClient = createPartnerClient({ baseUrl: 'http://127.0.0.1:9', credentials: { token: 'svc_x' }, retry: false });
const read: Promise<Patient> = client.fhir.read('Patient', '1');
void read.catch(() => undefined);
export { verifyWebhook, DeliveryDeduplicator, ApiError };
TS
"$repo_bin/tsc" --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --lib es2022,dom --skipLibCheck false --types node --typeRoots "$(dirname "$repo_bin")/@types" consumer.ts
node --input-type=module -e "
import { createPartnerClient, verifyWebhook, ApiError } from '@health-partner/sdk';
const client = createPartnerClient({ baseUrl: 'http://127.0.0.1:9', credentials: { token: 'svc_x' }, retry: false });
try { await client.fhir.read('Patient', '1'); } catch (err) { if (err instanceof ApiError) throw err; }
try { verifyWebhook('{}', {}, 'whsec_AAAA'); throw new Error('verified an unsigned delivery'); } catch (err) { if (err.name !== 'WebhookVerificationFailed') throw err; }
console.log('@health-partner/sdk: the packed tarball installs and works');
"

#!/usr/bin/env bash
# Mints a DEV bearer token signed with the dev key pair (the dev and test profiles trust its public key; prod never
# does). Usage: dev/mint-token.sh customer c-1     |     dev/mint-token.sh operator ops-1 [ttl-seconds]
set -euo pipefail
role=${1:?role: customer or operator}
subject=${2:?subject: the customer id (or the operator name)}
ttl=${3:-3600}
key="$(dirname "$0")/jwt/privateKey.pem"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
now=$(date +%s)
header=$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)
payload=$(printf '{"iss":"https://orderflow.dev/dev-issuer","sub":"%s","upn":"%s","groups":["%s"],"iat":%d,"exp":%d,"jti":"%s"}' \
  "$subject" "$subject" "$role" "$now" "$((now + ttl))" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | b64url)
signature=$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign "$key" -binary | b64url)
printf '%s.%s.%s\n' "$header" "$payload" "$signature"

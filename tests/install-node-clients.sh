#!/bin/sh
# Install the node clients (ioredis, node-redis, the MCP SDK and Inspector, BullMQ) into the tests' own folder.
# Node itself: whatever `node` and `npm` are on PATH; Debian's nodejs and npm are
# installed only when there are none (a machine may have Node from elsewhere,
# whose npm conflicts with Debian's package).
dir="$(dirname "$0")/clients/node"
[ -d "$dir/node_modules/ioredis" ] && [ -d "$dir/node_modules/redis" ] && [ -d "$dir/node_modules/redis5" ] && [ -d "$dir/node_modules/@modelcontextprotocol/sdk" ] && [ -d "$dir/node_modules/@modelcontextprotocol/inspector" ] && [ -d "$dir/node_modules/bullmq" ] && exit 0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    sh "$(dirname "$0")/install-deps.sh" nodejs npm || { echo "could not install nodejs and npm"; exit 1; }
fi
echo "installing node clients into $dir"
(cd "$dir" && npm install --no-audit --no-fund --silent >/dev/null 2>&1) || { echo "npm install failed"; exit 1; }

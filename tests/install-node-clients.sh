#!/bin/sh
# Install the node Redis clients (ioredis, node-redis) into the tests' own folder.
dir="$(dirname "$0")/clients/node"
[ -d "$dir/node_modules/ioredis" ] && [ -d "$dir/node_modules/redis" ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "npm not found"; exit 1; }
echo "installing node clients into $dir"
(cd "$dir" && npm install --no-audit --no-fund --silent >/dev/null 2>&1) || { echo "npm install failed"; exit 1; }

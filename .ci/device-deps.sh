#!/usr/bin/env bash
# Run HERE before a device call: copies the headers and sources the GPU machine lacks (it has
# no network) from this machine's Debian packages, and the shared test data, into .deps/,
# which the call carries.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .deps/include
rm -rf .deps/include/nlohmann && cp -r /usr/include/nlohmann .deps/include/
rm -rf .deps/include/eigen3 && cp -r /usr/include/eigen3 .deps/include/eigen3
rm -rf .deps/googletest && cp -r /usr/src/googletest .deps/googletest
# SQLite: the GPU machine has the library's runtime but no header; carry Debian's header and
# static library so the project store (and `gsr train`) builds there too. The header gets a
# folder of its own: on the include path of the store it must not bring these nlohmann
# headers before the GPU machine's own (a second JSON ABI in one link).
rm -f .deps/include/sqlite3.h .deps/include/sqlite3ext.h
mkdir -p .deps/sqlite && cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .deps/sqlite/
mkdir -p .deps/lib && cp /usr/lib/x86_64-linux-gnu/libsqlite3.a .deps/lib/
# The public test data (read in place by the tests; ignored by git, never committed).
# The shared data has no write bits, and cp keeps them: made writable first, so that a later
# run can remove the copy as any user.
chmod -R u+w .deps/data 2>/dev/null || true
rm -rf .deps/data && cp -r --no-preserve=mode ../shared/data .deps/data
du -sh .deps

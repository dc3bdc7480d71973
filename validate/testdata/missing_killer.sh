#!/bin/sh
# A group killer for validate/command_policy_test.ts: misses the first signal to
# each group, as a kill sent before the starter has called setsid() does (no
# such group), then signals as /usr/bin/kill does. Its arguments are those of
# the real one: -s SIGNAL -- -PGID.
marker="/tmp/forge-missing-killer$4"
if [ ! -e "$marker" ]; then
  : > "$marker"
  exit 1
fi
rm -f "$marker"
exec /usr/bin/kill "$@"

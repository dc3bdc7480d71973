#!/bin/sh
# A group killer for validate/command_policy_test.ts: misses the first signal to
# each group, as a kill sent before the starter has called setsid() does (no
# such group), then signals as /usr/bin/kill does. Its arguments are those of
# the real one: -s SIGNAL -- -PGID. A marker left by a run that ended before its
# second signal is removed once it is a minute old: a later run whose group gets
# that pid again must have its first signal missed too.
find /tmp -maxdepth 1 -name 'forge-missing-killer-*' -mmin +1 -exec rm -f {} + 2>/dev/null
marker="/tmp/forge-missing-killer$4"
if [ ! -e "$marker" ]; then
  : > "$marker"
  exit 1
fi
rm -f "$marker"
exec /usr/bin/kill "$@"

#!/bin/sh
# A session starter for validate/command_policy_test.ts: records each start in
# the folder it runs in, then starts the program as /usr/bin/setsid would.
echo "$@" >> starts
exec /usr/bin/setsid "$@"

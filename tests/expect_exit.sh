#!/bin/sh
# expect_exit.sh CODE REGEX COMMAND [ARG]...: runs COMMAND, shows what it printed, and passes
# only when it exits with CODE and its output (stdout and stderr) matches the extended REGEX.
# ctest's PASS_REGULAR_EXPRESSION alone ignores the exit status.
code=$1 regex=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$code" ]; then
  echo "expect_exit: exit status $status, expected $code" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_exit: no line matches: $regex" >&2
  exit 1
fi

#!/bin/sh
# The system protoc; its version matches libprotobuf-dev.
exec /usr/bin/protoc "$@"

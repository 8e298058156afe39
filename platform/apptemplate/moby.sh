#!/bin/sh
# docker.socket (root:docker 0660) listens before Lima's boot scripts run,
# and the host agent's SSH session, which forwards the socket, logged in
# before them too, so a docker group membership added now would not reach
# it: the socket goes to the Lima user instead, at every boot.
i=0
until [ -S /run/docker.sock ]; do
	i=$((i + 1))
	if [ "$i" -gt 300 ]; then
		echo "docker.socket did not listen within 30 s" >&2
		exit 1
	fi
	sleep 0.1
done
chown "{{.User}}" /run/docker.sock

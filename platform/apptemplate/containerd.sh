#!/bin/sh
# containerd starts from the kernel command line (or from the install
# script before this one); its socket (root 0660) goes to the Lima user,
# whose SSH session forwards it.
i=0
until [ -S /run/containerd/containerd.sock ]; do
	i=$((i + 1))
	if [ "$i" -gt 300 ]; then
		echo "containerd did not listen within 30 s" >&2
		exit 1
	fi
	sleep 0.1
done
chown "{{.User}}" /run/containerd/containerd.sock

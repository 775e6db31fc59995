#!/bin/sh
# Runs inside the test VM (test/helpers/vm.ts) as a systemd service, after
# multi-user.target, with systemd as PID 1 and no network device. It observes; the test
# (test/system-vm.test.ts) judges. Each observation is one line "@ key value" on the
# second serial port. Phase 1 (vmtest.phase=1 on the kernel command line): install the
# previous package, use the service, break it, upgrade. Phase 2: the next boot of the same
# disk, with no sound driver loaded by hardware: a microphone plugged in later, then purge.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH DEBIAN_FRONTEND=noninteractive
P=/payload
URL=http://127.0.0.1:5050
CONF=/etc/device-agent/config.json
STATE=/var/lib/device-agent
UNIT=device-agent
W=/root/vmtest
mkdir -p $W

r() { k=$1; shift; echo "@ $k $*"; }
up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }'; }
show() { systemctl show -p "$1" --value $UNIT; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
auth() { echo "Authorization: Bearer $TOKEN"; }
sha() { sha256sum "$1" 2>/dev/null | cut -c1-64; }
# A time for journalctl --since @T: what comes after it (a second later than what came before).
mark() { sleep 1; date +%s; }

# Seconds from $1 (uptime) until health answers 200, "never" after 60 s.
serving() {
	i=0
	while [ $i -lt 600 ]; do
		[ "$(code --max-time 2 $URL/api/v1/health)" = 200 ] && { since "$1"; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	echo never
}

# Seconds from $1 until the main pid is neither $2 nor 0, "never" after $3 s.
new_pid() {
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		p=$(show MainPID)
		[ "$p" != 0 ] && [ "$p" != "$2" ] && { since "$1"; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	echo never
}

login() {
	curl -s -o $W/login.json -w '%{http_code}' -H 'Content-Type: application/json' \
		-d "{\"username\":\"admin\",\"password\":\"$(cat $STATE/initial-admin-password)\"}" \
		$URL/api/v1/agentusers/loginusertoagent
}
token() { sed -n 's/.*"token":"\([^"]*\)".*/\1/p' $W/login.json; }
# A member of a one-line JSON object: a string (escapes kept) or a literal (null, 12).
json() { sed -n -e "s/.*\"$1\":\"\(\([^\"\\\\]\|\\\\.\)*\)\".*/\1/p" -e t -e "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2"; }

# A 2 s flac recording from ALSA "default": start code, end state, error, length in s.
record() {
	c=$(curl -s -o $W/rec.json -w '%{http_code}' -H "$(auth)" -H 'Content-Type: application/json' \
		-d "{\"duration\": ${2:-2}, \"fileExtension\": \"flac\"}" $URL/api/v1/audiofiles/audiorecordstart)
	r "$1.code" "$c"
	r "$1.start_error" "$(json error $W/rec.json)"
	i=0
	while [ $i -lt 300 ]; do
		curl -s -o $W/rec.json -H "$(auth)" $URL/api/v1/audiofiles/audiorecordstatus
		[ "$(json state $W/rec.json)" = recording ] || break
		sleep 0.1
		i=$((i + 1))
	done
	r "$1.state" "$(json state $W/rec.json)"
	r "$1.error" "$(json error $W/rec.json)"
	file=$(json file $W/rec.json)
	if [ -n "$file" ] && [ "$file" != null ]; then
		curl -s -o $W/rec.flac -H "$(auth)" "$URL/api/download?filepath=$file"
		r "$1.seconds" "$(soxi -D $W/rec.flac 2>&1)"
	fi
}

# Health requests back to back while "$@" runs and 2 s after: exit status of "$@", requests,
# failed ones (refused: 000), counts by status. A slow answer (the agent starting under
# emulation takes seconds) is waited for, up to 60 s.
steady() {
	rm -f $W/steady.stop $W/steady.codes
	(while [ ! -e $W/steady.stop ]; do code --max-time 60 $URL/api/v1/health >>$W/steady.codes; echo >>$W/steady.codes; done) &
	loop=$!
	sleep 1
	"$@" >$W/steady.out 2>&1
	rc=$?
	sleep 2
	touch $W/steady.stop
	wait $loop
	echo "$rc $(grep -c . $W/steady.codes) $(grep -vc '^200$' $W/steady.codes) $(sort $W/steady.codes | uniq -c | tr -s ' \n' ' ')"
}

phase=$(sed -n 's/.*vmtest\.phase=\([0-9]*\).*/\1/p' /proc/cmdline)
r phase "$phase"
r boot.uptime "$(up)"
r boot.kernel "$(uname -r)"
r boot.systemd "$(systemctl --version | head -1)"
r boot.alsa_major "$(awk '$2 == "alsa" { print $1 }' /proc/devices)"
r boot.snd_modules "$(lsmod 2>/dev/null | awk '$1 ~ /^snd/ { print $1 }' | sort | tr '\n' ' ')"

if [ "$phase" = 1 ]; then
	t=$(up)
	dpkg -i $P/old.deb >$W/install.log 2>&1
	r install.exit "$?"
	r install.seconds "$(since "$t")"
	r install.active "$(systemctl is-active $UNIT)"
	r install.serving "$(serving "$t")"
	r install.version "$(dpkg-query -W -f '${Version}' device-agent)"
	r unit.type "$(show Type)"
	r unit.watchdog "$(show WatchdogUSec)"
	r unit.reload "$(show ExecReload)"
	r unit.status_text "$(show StatusText)"
	r unit.user "$(ps -o user= -p "$(show MainPID)")"
	r unit.private_users "$(show PrivateUsers)"

	r login.code "$(login)"
	TOKEN=$(token)
	OLD_TOKEN=$TOKEN
	r login.token_length "${#TOKEN}"
	r status.code "$(curl -s -o $W/status.json -w '%{http_code}' -H "$(auth)" $URL/api/v1/devicestatus/get)"
	r status.hostname "$(json hostname $W/status.json)"
	# The packaged config turns HTTPS on, on the same port (the agent made its certificate).
	r tls.health "$(code -k https://127.0.0.1:5050/api/v1/health)"

	head -c 50000000 /dev/urandom >$W/big.bin
	r transfer.sent "$(sha $W/big.bin)"
	t=$(up)
	r transfer.upload_code "$(curl -s -o $W/up.json -w '%{http_code}' -H "$(auth)" -F saveToPath=big.bin -F myFile=@$W/big.bin $URL/api/upload)"
	r transfer.upload_seconds "$(since "$t")"
	r transfer.upload_body "$(cat $W/up.json)"
	r transfer.stored "$(sha $STATE/files/big.bin)"
	t=$(up)
	r transfer.download_code "$(curl -s -o $W/down.bin -w '%{http_code}' -H "$(auth)" "$URL/api/download?filepath=big.bin")"
	r transfer.download_seconds "$(since "$t")"
	r transfer.received "$(sha $W/down.bin)"
	rm -f $W/big.bin $W/down.bin

	# Sound: the driver is loaded now, after the service started (a microphone plugged in).
	r rec.alsa_major_before "$(awk '$2 == "alsa" { print $1 }' /proc/devices)"
	modprobe snd-aloop
	udevadm settle
	r rec.devices "$(ls /dev/snd | tr '\n' ' ')"
	r rec.started_before_plug "$(systemctl show -p ActiveEnterTimestampMonotonic --value $UNIT)"
	record rec 2

	# A crash: systemd restarts it.
	pid=$(show MainPID)
	n=$(show NRestarts)
	t=$(up)
	systemctl kill -s KILL $UNIT
	r kill.new_pid "$(new_pid "$t" "$pid" 30)"
	r kill.serving "$(serving "$t")"
	r kill.restarts "$(($(show NRestarts) - n))"

	# A hung event loop: the watchdog restarts it (only with WatchdogSec= in the unit).
	if [ "$(show WatchdogUSec)" != 0 ]; then
		pid=$(show MainPID)
		t=$(up)
		kill -STOP "$pid"
		r wd.new_pid "$(new_pid "$t" "$pid" 120)"
		r wd.serving "$(serving "$t")"
		r wd.journal "$(journalctl -u $UNIT -o cat --no-pager | grep -c 'Watchdog timeout')"
	fi

	# A bad drop-in on reload: rejected whole, the running config stays (only with ExecReload=).
	if [ -n "$(show ExecReload)" ]; then
		mkdir -p /etc/device-agent/config.d
		echo '{"tokenTtlSeconds": "soon"}' >/etc/device-agent/config.d/50-bad.json
		pid=$(show MainPID)
		since=$(mark)
		systemctl reload $UNIT
		r reload.exit "$?"
		sleep 2
		r reload.same_pid "$([ "$(show MainPID)" = "$pid" ] && echo yes || echo no)"
		r reload.active "$(systemctl is-active $UNIT)"
		r reload.status "$(code -H "$(auth)" $URL/api/v1/devicestatus/get)"
		r reload.error "$(journalctl -u $UNIT --since "@$since" -p err -o cat --no-pager | grep -m1 50-bad.json)"
		rm /etc/device-agent/config.d/50-bad.json
		systemctl reload $UNIT
	fi

	# A broken config at start: exit 78 and no restart loop.
	cp $CONF $W/config.json
	sed -i 's/"port": 5050,/"port": 5050, "colour": "blue",/' $CONF
	since=$(mark)
	systemctl restart $UNIT
	r broken.restart_exit "$?"
	n=$(show NRestarts)
	# Three times RestartSec=: a restart loop would have started it again by now.
	sleep 7
	r broken.exit_status "$(show ExecMainStatus)"
	r broken.state "$(systemctl is-active $UNIT)"
	r broken.result "$(show Result)"
	# Automatic restarts after the failed start: by the counter and by the journal.
	r broken.restarts "$(($(show NRestarts) - n)) $(journalctl -u $UNIT --since "@$since" -o cat --no-pager | grep -c 'Scheduled restart job')"
	r broken.error "$(journalctl -u $UNIT --since "@$since" -p err -o cat --no-pager | grep -m1 colour)"
	cp $W/config.json $CONF
	systemctl reset-failed $UNIT
	systemctl start $UNIT
	r broken.serving_after_fix "$(serving "$(up)")"

	# Priorities: what journalctl -p err shows.
	journalctl -u $UNIT -p err -o cat --no-pager | grep -v '^-- ' >$W/err.txt
	r journal.err_lines "$(grep -c . $W/err.txt)"
	r journal.err_config "$(grep -c colour $W/err.txt)"
	r journal.err_requests "$(grep -cE ' (GET|POST|HEAD) /' $W/err.txt)"
	r journal.err_first "$(head -1 $W/err.txt)"
	r journal.warning_info "$(journalctl -u $UNIT -p warning -o cat --no-pager | grep -c 'listening on')"
	r journal.info_requests "$(journalctl -u $UNIT -p info -o cat --no-pager | grep -cE ' (GET|POST|HEAD) /')"

	r security.exposure "$(systemd-analyze security $UNIT --no-pager 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"

	# Restart under load.
	r restart.steady "$(steady systemctl restart $UNIT)"
	serving "$(up)" >/dev/null

	# Upgrade to this tree's package: users, secret and files stay; the service restarts.
	users=$(sha $STATE/users.json)
	secret=$(sha $STATE/jwt.secret)
	stored=$(sha $STATE/files/big.bin)
	pid=$(show MainPID)
	t=$(up)
	r upgrade.steady "$(steady dpkg -i $P/new.deb)"
	r upgrade.seconds "$(since "$t")"
	r upgrade.version "$(dpkg-query -W -f '${Version}' device-agent)"
	r upgrade.active "$(systemctl is-active $UNIT)"
	r upgrade.restarted "$([ "$(show MainPID)" != "$pid" ] && echo yes || echo no)"
	r upgrade.users "$([ "$(sha $STATE/users.json)" = "$users" ] && echo kept || echo changed)"
	r upgrade.secret "$([ "$(sha $STATE/jwt.secret)" = "$secret" ] && echo kept || echo changed)"
	r upgrade.files "$([ "$(sha $STATE/files/big.bin)" = "$stored" ] && echo kept || echo changed)"
	r upgrade.old_token "$(code -H "$(auth)" $URL/api/v1/devicestatus/get)"
	r upgrade.login "$(login)"
	r upgrade.enabled "$(systemctl is-enabled $UNIT)"

	# The audit trail under journald: its own syslog identifier, the events alone, a JSON
	# object a line. Events of the agent (login ok and failed, a bad token, a download, a
	# token made and revoked through the API, a reload) and of the CLI (run as root).
	since=$(mark)
	login >/dev/null
	TOKEN=$(token)
	code -H 'Content-Type: application/json' -d '{"username":"admin","password":"not the password"}' \
		$URL/api/v1/agentusers/loginusertoagent >/dev/null
	code -H 'Authorization: Bearer dat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' $URL/api/v1/devicestatus/get >/dev/null
	echo audited >$STATE/files/audit.txt
	code -H "$(auth)" "$URL/api/download?filepath=audit.txt" >/dev/null
	curl -s -o $W/tok.json -H "$(auth)" -H 'Content-Type: application/json' -d '{"name":"vm-api"}' $URL/api/v1/tokens
	API_TOKEN=$(json token $W/tok.json)
	code -H "Authorization: Bearer $API_TOKEN" $URL/api/v1/devicestatus/get >/dev/null
	code -X DELETE -H "$(auth)" "$URL/api/v1/tokens/$(json id $W/tok.json)" >/dev/null
	CLI_TOKEN=$(device-agent token create vm-cli --user admin --config $CONF 2>/dev/null | tail -n1)
	device-agent token revoke vm-cli --user admin --config $CONF >/dev/null 2>&1
	systemctl reload $UNIT
	sleep 2
	journalctl -t device-agent-audit --since "@$since" -o cat --no-pager >$W/audit.txt
	r audit.lines "$(grep -c . $W/audit.txt)"
	r audit.other_lines "$(grep -cv '^{"time":"[^"]*","event":"[^"]*","outcome":"[a-z]*",.*}$' $W/audit.txt)"
	r audit.events "$(sed -n 's/^{"time":"[^"]*","event":"\([^"]*\)","outcome":"\([a-z]*\)".*/\1:\2/p' $W/audit.txt | sort -u | tr '\n' ' ')"
	r audit.cli "$(grep -c '"credential":"cli"' $W/audit.txt)"
	# What to look at when the count is off: the lines, the journal's identifiers since the
	# mark, and the agent's own words about its audit stream.
	r audit.text "$(head -c 1500 $W/audit.txt | tr '\n' '|')"
	r audit.identifiers "$(journalctl --since "@$since" -o verbose --no-pager | sed -n 's/^ *SYSLOG_IDENTIFIER=//p' | sort | uniq -c | tr -s ' \n' ' ')"
	r audit.unit_lines "$(journalctl -u $UNIT --since "@$since" -o cat --no-pager | grep -c '"event":')"
	r audit.stream_errors "$(journalctl -u $UNIT --since "@$since" -o cat --no-pager | grep -m2 'audit trail' | tr '\n' '|')"
	# Never a secret, anywhere in the journal.
	r audit.secrets "$(journalctl -o cat --no-pager | grep -cF -e "$TOKEN" -e "$API_TOKEN" -e "$CLI_TOKEN" -e "$(cat $STATE/initial-admin-password)")"
	r audit.token_lengths "${#API_TOKEN} ${#CLI_TOKEN}"
	# The service's own log under its unit keeps its request lines.
	r audit.unit_requests "$(journalctl -u $UNIT --since "@$since" -o cat --no-pager | grep -cE ' (GET|POST|DELETE) /')"
fi

if [ "$phase" = 2 ]; then
	# Booted with the package installed and no sound hardware: only what the package loads.
	r p2.active "$(systemctl is-active $UNIT)"
	r p2.serving "$(serving "$(up)")"
	r p2.login "$(login)"
	TOKEN=$(token)
	modprobe snd-aloop
	udevadm settle
	r p2.devices "$(ls /dev/snd | tr '\n' ' ')"
	record p2.rec 2

	t=$(up)
	dpkg --purge device-agent >$W/purge.log 2>&1
	r purge.exit "$?"
	r purge.seconds "$(since "$t")"
	left=
	for f in /var/lib/device-agent /etc/device-agent /usr/bin/device-agent /lib/systemd/system/device-agent.service \
		/etc/systemd/system/multi-user.target.wants/device-agent.service /etc/systemd/system/device-agent.service \
		/usr/lib/modules-load.d/device-agent.conf /etc/avahi/services/device-agent.service \
		/var/lib/systemd/deb-systemd-helper-enabled/device-agent.service; do
		[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
	done
	r purge.left "${left:-none}"
	r purge.load_state "$(show LoadState)"
	r purge.health "$(code --max-time 2 $URL/api/v1/health)"
	r purge.processes "$(pgrep -c -u device-agent)"
	r purge.dpkg "$(dpkg-query -W -f '${db:Status-Abbrev}' device-agent 2>&1)"
fi

r done "$(up)"

"""Scripts written as an attacker would: each puts the marker (argv[1]) in what it leaves."""

from __future__ import annotations

SLEEPER = "import os, sys\nos.execv('/bin/sleep', [sys.argv[1], '300'])\n"
"""A helper the attacks start: a ``sleep 300`` whose command line is the marker."""

DOUBLE_FORK = """\
import os, sys
if os.fork() == 0:
    os.setsid()                      # a new session: killpg never reaches it
    if os.fork() == 0:
        os.execv('/bin/sleep', [sys.argv[1], '300'])
    os._exit(0)
os.wait()
print('parent done')
"""

BACKGROUND_JOB = """\
(exec -a "$1" sleep 300) &
echo started
exit 3
"""

TERM_IGNORING = """\
trap '' TERM
for i in 1 2 3; do (exec -a "$1" sleep 300) & done
echo looping
while :; do sleep 0.1; done
"""

FORK_STORM = """\
import os, sys, time
marker = sys.argv[1]
root = os.getpid()
blocked = False
for _ in range(9):                   # doubling: 512 processes if nothing stops it
    try:
        os.fork()
    except OSError:
        blocked = True
        break
if os.getpid() != root:
    print('blocked' if blocked else 'forked', flush=True)
    os.execv('/bin/sleep', [marker, '300'])


def count():
    # this process and every descendant (the storm), from the parent pids in /proc
    children = {}
    for entry in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{entry}/stat') as stat:
                parent = int(stat.read().rsplit(')', 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(parent, []).append(int(entry))
    pending, found = [root], 0
    while pending:
        found += 1
        pending += children.get(pending.pop(), [])
    return found


seen = [count()]
while len(seen) < 5 or len(set(seen[-5:])) > 1:  # until the storm settles
    time.sleep(0.05)
    seen.append(count())
print('root', 'blocked' if blocked else 'forked', 'peak', max(seen), flush=True)
"""

HUNT_SECRETS = """\
import glob, json, os, sys
NAMES = ('AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS')


def secrets_in(text):
    return [item for item in text.split('\\0') if item.split('=', 1)[0] in NAMES]


def environ(pid):
    try:
        with open(f'/proc/{pid}/environ', 'rb') as handle:
            return handle.read().decode(errors='replace')
    except OSError:
        return ''


found = {'os.environ': secrets_in('\\0'.join(f'{k}={v}' for k, v in os.environ.items()))}
pid = os.getpid()
while pid > 1:                       # every ancestor, up to init
    try:
        with open(f'/proc/{pid}/stat') as stat:
            pid = int(stat.read().rsplit(')', 1)[1].split()[1])
    except OSError:
        break
    found[f'ancestor {pid}'] = secrets_in(environ(pid))
for entry in os.listdir('/proc'):    # every process in sight
    if entry.isdigit():
        found[f'/proc/{entry}'] = secrets_in(environ(entry))
found['the agent by pid'] = secrets_in(environ(sys.argv[1]))
host = ['/etc/shadow', '/etc/gshadow', *glob.glob('/etc/ssh/ssh_host_*')]
for path in [*host, *sys.argv[2:]]:  # the host's secrets, and files planted for the test
    try:
        with open(path) as handle:
            found[path] = [handle.read()]
    except OSError:
        pass
print(json.dumps({where: items for where, items in found.items() if items}))
"""
"""Prints, as JSON, every secret it finds: in environments (its own, its ancestors', every
process's, the agent's: ``argv[1]`` is the agent's pid), in the host's password hashes and SSH
host keys, and in the files named by the other arguments (paths an attacker would guess)."""

SYSTEM_AT_WORK = """\
import json, os, pwd, ssl, subprocess
paths = ssl.get_default_verify_paths()
shell = 'ls / > /dev/null && python3 -c "print(6 * 7)" > "$TMPDIR/out" && cat "$TMPDIR/out"'
with open('/proc/self/status') as status:
    capabilities = [line.split()[1] for line in status if line.startswith('CapEff')]
print(json.dumps({
    'ids': [os.getuid(), os.getgid(), os.geteuid(), os.getegid()],
    'name': pwd.getpwuid(os.getuid()).pw_name,
    'passwd': open('/etc/passwd').read().splitlines(),
    'capabilities': capabilities,
    'etc': sorted(os.listdir('/etc')),
    'authorities': ssl.create_default_context().cert_store_stats()['x509_ca'],
    'ca file': paths.cafile is not None and os.path.isfile(paths.cafile),
    'shell': subprocess.run(['sh', '-c', shell], capture_output=True, text=True).stdout,
}))
"""
"""What a script needs of the system: who it is, certificates, ``sh``, ``ls``, ``python3``,
a scratch folder to write to; printed as JSON."""

LIFT_LIMIT = """\
import sys
for line in open('/proc/self/cgroup').read().splitlines():
    hierarchy, controllers, path = line.split(':', 2)
    if 'pids' in controllers.split(','):
        limit = f'/sys/fs/cgroup/pids{path}/pids.max'
    elif hierarchy == '0':
        limit = f'/sys/fs/cgroup{path}/pids.max'
    else:
        continue
    try:
        with open(limit, 'w') as handle:
            handle.write('max')
        print('lifted', limit)
    except OSError as exc:
        print('refused', type(exc).__name__)
"""
"""Tries to lift its own process limit by writing ``max`` to its pids cgroup's ``pids.max``."""

CONNECT = """\
import socket, sys
try:
    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5).close()
    print('connected')
except OSError as exc:
    print('refused', type(exc).__name__)
"""

WRITE_EVERYWHERE = """\
import os, sys
targets = {
    'scratch': os.path.join(os.environ['TMPDIR'], 'out.txt'),
    'home': os.path.join(os.environ['HOME'], '.cache-file'),
    'tmp': '/tmp/out.txt',
    'skill_folder': 'out.txt',
    'own_script': __file__,
    'etc': '/etc/skillfs-attack',
    'usr': '/usr/skillfs-attack',
    'root': '/skillfs-attack',
    'dev': '/dev/skillfs-attack',
    'outside': sys.argv[1],
}
for name, path in targets.items():
    try:
        with open(path, 'a') as handle:
            handle.write('attack')
        print(name, 'written')
    except OSError as exc:
        print(name, 'refused', type(exc).__name__)
try:
    print('secret', open(sys.argv[2]).read())
except OSError as exc:
    print('secret', 'unreadable', type(exc).__name__)
"""

FILL = """\
import os, sys
path = os.path.join(os.environ['TMPDIR'], sys.argv[1])  # an absolute argv[1] wins
try:
    with open(path, 'wb') as out:
        for _ in range(int(sys.argv[2]) // 65536):
            out.write(b'x' * 65536)
            out.flush()
finally:
    print('size', os.path.getsize(path), flush=True)
"""
"""Writes argv[2] bytes to argv[1] (relative: in the scratch folder); prints what landed."""

LEAVE_SCRATCH = """\
head -c 65536 /dev/zero > "$TMPDIR/left-behind"
exec -a "$1-waiting" sleep 300
"""
"""Fills its scratch folder a little, then waits (as MARKER-waiting) to be killed with its agent."""

ALLOCATE = """\
import sys
try:
    block = bytearray(int(sys.argv[1]))
    print('allocated')
except MemoryError:
    print('refused MemoryError')
"""

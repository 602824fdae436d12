# Prints "<stream messages> <stream last_seq> <kv values>" from a NATS server (JetStream API).
import socket, json, sys
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port)); f = s.makefile('rb')
f.readline()
s.sendall(b'CONNECT {"verbose":false,"headers":false}\r\nSUB _INBOX.b 1\r\n')
def info(name):
    s.sendall(f'PUB $JS.API.STREAM.INFO.{name} _INBOX.b 0\r\n\r\n'.encode())
    while True:
        line = f.readline()
        if line.startswith(b'MSG'):
            n = int(line.split()[-1]); body = f.read(n); f.readline()
            return json.loads(body)
        if line.startswith(b'PING'):
            s.sendall(b'PONG\r\n')
p = info("BOTWARDEN_PAIRS"); k = info("KV_botwarden_verdicts")
ps = p.get("state", {}); ks = k.get("state", {})
print(ps.get("messages", 0), ps.get("last_seq", 0), ks.get("messages", 0))

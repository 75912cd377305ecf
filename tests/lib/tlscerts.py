"""tlscerts.py -- certificates for TLS tests, made with the openssl command.

make_certs(dir) writes into dir a CA (ca.crt, ca.key), a server certificate
signed by it for localhost and 127.0.0.1 (server.crt, server.key), the same key
encrypted with the passphrase "secret" (server-enc.key), a client certificate
signed by the CA (client.crt, client.key), and a client certificate signed by
another CA nobody trusts (rogue.crt, rogue.key); it returns their paths by
name ("ca", "server_crt", ...). ECDSA P-256 keys (made at once, where RSA
keys took seconds on a busy machine), valid two days: nothing outlives the
test's temporary directory. `python3 tlscerts.py DIR` does the same for shell
scripts (bench/tls-vs-redis.sh).
"""
import os
import subprocess
import sys


KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]


def _run(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _ca(d, name, cn):
    _run("req", "-x509", "-new", "-nodes", *KEY, "-keyout", name + ".key", "-out", name + ".crt",
         "-days", "2", "-subj", "/CN=" + cn, cwd=d)


def _signed(d, name, cn, ca, ext=None):
    _run("req", "-new", "-nodes", *KEY, "-keyout", name + ".key", "-out", name + ".csr",
         "-subj", "/CN=" + cn, cwd=d)
    args = ["x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key", "-CAcreateserial",
            "-out", name + ".crt", "-days", "2"]
    if ext:
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(ext)
        args += ["-extfile", name + ".ext"]
    _run(*args, cwd=d)


def make_certs(d):
    os.makedirs(d, exist_ok=True)
    _ca(d, "ca", "Scratchpad Test CA")
    _ca(d, "rogueca", "Someone Else's CA")
    _signed(d, "server", "localhost", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _signed(d, "client", "agent-a", "ca", "extendedKeyUsage=clientAuth\n")
    _signed(d, "rogue", "agent-x", "rogueca", "extendedKeyUsage=clientAuth\n")
    _run("pkey", "-in", "server.key", "-out", "server-enc.key", "-aes256", "-passout", "pass:secret", cwd=d)
    p = lambda n: os.path.join(d, n)  # noqa: E731
    return {"dir": d, "ca": p("ca.crt"), "server_crt": p("server.crt"), "server_key": p("server.key"),
            "server_enc_key": p("server-enc.key"), "client_crt": p("client.crt"), "client_key": p("client.key"),
            "rogue_crt": p("rogue.crt"), "rogue_key": p("rogue.key")}


def server_args(c, tls_port, *more):
    """The scratchpad-server / redis-server arguments of a TLS port with c's
    certificates (clients must present one signed by the CA)."""
    return ["--tls-port", str(tls_port), "--tls-cert-file", c["server_crt"], "--tls-key-file", c["server_key"],
            "--tls-ca-cert-file", c["ca"]] + list(more)


if __name__ == "__main__":
    make_certs(sys.argv[1])

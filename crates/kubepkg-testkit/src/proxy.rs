//! A real forward HTTP proxy for tests of `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`: Debian's
//! `tinyproxy` (scripts/test and `.ci/run` install it through scripts/lib/needs.sh), started on
//! a free loopback port with a configuration of its own, logging every request it forwards ([`HttpProxy::log`]), stopped on drop.
//!
//! Clients (Go's and kubepkg's alike) never send requests for `localhost` or loopback addresses
//! through a proxy, so the servers behind it listen on this machine's outward address
//! ([`outward_ip`], the `outward` option of [`crate::chart_repo::ServeOptions`]).

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Error;

fn proxy_error(message: impl Into<String>) -> Error {
    Error::Proxy {
        message: message.into(),
    }
}

/// This machine's address on the interface of its default route (not loopback): where a test
/// server listens when requests to it must go through a proxy.
pub fn outward_ip() -> Result<IpAddr, Error> {
    // Connecting a UDP socket sends nothing; it only picks the route and so the local address.
    let socket = std::net::UdpSocket::bind("0.0.0.0:0")
        .map_err(|e| proxy_error(format!("binding a UDP socket: {e}")))?;
    socket.connect("192.0.2.1:9").map_err(|e| {
        proxy_error(format!(
            "this machine has no route off loopback ({e}); proxy tests need a non-loopback address"
        ))
    })?;
    let ip = socket
        .local_addr()
        .map_err(|e| proxy_error(format!("reading the UDP socket's address: {e}")))?
        .ip();
    if ip.is_loopback() || ip.is_unspecified() {
        return Err(proxy_error(format!(
            "this machine's outward address is {ip}; proxy tests need a non-loopback address"
        )));
    }
    Ok(ip)
}

/// A running `tinyproxy`.
#[derive(Debug)]
pub struct HttpProxy {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl HttpProxy {
    /// Starts `tinyproxy` on a free loopback port, allowing `CONNECT` to any port.
    pub fn start() -> Result<HttpProxy, Error> {
        let binary = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .ok_or_else(|| {
                proxy_error(
                    "tinyproxy is not installed (/usr/bin/tinyproxy): scripts/test installs it \
                     (scripts/lib/needs.sh), or `apt-get install -y tinyproxy`",
                )
            })?;
        let dir = tempfile::tempdir().map_err(|e| proxy_error(format!("tempdir: {e}")))?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| proxy_error(format!("finding a free port: {e}")))?
            .port();
        let log = dir.path().join("tinyproxy.log");
        let conf = dir.path().join("tinyproxy.conf");
        // No ConnectPort line: CONNECT is allowed to every port (the test servers' are random).
        std::fs::write(
            &conf,
            format!(
                "Port {port}\nListen 127.0.0.1\nTimeout 60\nMaxClients 50\nAllow 127.0.0.1\n\
                 LogFile \"{}\"\nLogLevel Info\nPidFile \"{}\"\nDisableViaHeader Yes\n",
                log.display(),
                dir.path().join("tinyproxy.pid").display()
            ),
        )
        .map_err(|e| proxy_error(format!("writing {}: {e}", conf.display())))?;
        let child = Command::new(&binary)
            .arg("-d")
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| proxy_error(format!("starting {}: {e}", binary.display())))?;
        let mut proxy = HttpProxy {
            child,
            port,
            log,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = proxy.child.try_wait() {
                return Err(proxy_error(format!(
                    "tinyproxy exited at start ({status}); its log:\n{}",
                    proxy.log()
                )));
            }
            if Instant::now() > deadline {
                return Err(proxy_error(format!(
                    "tinyproxy did not listen on 127.0.0.1:{port} within 10s; its log:\n{}",
                    proxy.log()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(proxy)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What tinyproxy logged so far (one `Request … : GET http://…` or `CONNECT host:port` line
    /// per request it forwarded).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for HttpProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

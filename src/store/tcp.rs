//! `TCP_NODELAY` on the process's TCP connections to the PostgreSQL server.
//!
//! sqlx 0.9 opens its PostgreSQL connections with Nagle's algorithm on and offers no option to
//! turn it off. A statement whose message leaves in more than one write (an article with its
//! raw page and HTML: tens of KB) then holds its last small segment back until the server
//! acknowledges the one before it, and the server delays that acknowledgement (40 ms on Linux)
//! because it is waiting for the rest of the message. Every such statement then costs ~40 ms
//! of nothing, inside the article transaction. The pool's `after_connect` hook calls
//! [`disable_nagle`] for every new connection: it finds the process's sockets connected to the
//! server's address (Linux: `/proc/self/fd`) and sets `TCP_NODELAY` on those that lack it, as
//! libpq does on every connection it opens.

use std::net::SocketAddr;

/// The addresses a PostgreSQL host name stands for, to recognise its connections by their peer.
/// Empty when the connection goes through a Unix socket, or the name does not resolve (sqlx
/// then fails to connect and says why).
pub(super) async fn server_addresses(host: &str, port: u16) -> Vec<SocketAddr> {
    match tokio::net::lookup_host((host, port)).await {
        Ok(addresses) => addresses.collect(),
        Err(error) => {
            tracing::debug!(host, port, %error, "cannot resolve the PostgreSQL host");
            Vec::new()
        }
    }
}

/// Sets `TCP_NODELAY` on every TCP socket of this process connected to one of `servers`;
/// returns how many it changed. Sockets that already have it are left alone, so calling this
/// once per new connection costs one scan of the process's descriptors.
#[cfg(target_os = "linux")]
pub(super) fn disable_nagle(servers: &[SocketAddr]) -> std::io::Result<usize> {
    use std::os::fd::{BorrowedFd, RawFd};
    use std::os::unix::ffi::OsStrExt;

    let mut changed = 0;
    if servers.is_empty() {
        return Ok(changed);
    }
    for entry in std::fs::read_dir("/proc/self/fd")?.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<RawFd>().ok())
        else {
            continue;
        };
        // A socket's link reads `socket:[inode]`; files, pipes and the like are skipped.
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.as_os_str().as_bytes().starts_with(b"socket:"));
        if !is_socket {
            continue;
        }
        // SAFETY: the descriptor is only queried and given a socket option while borrowed,
        // never closed. Should another thread close it and reuse its number meanwhile, the
        // calls reach that other descriptor of this process (or fail with EBADF), and nothing
        // is changed on it unless it is a TCP stream connected to the server as well.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let socket = socket2::SockRef::from(&fd);
        if !socket
            .r#type()
            .is_ok_and(|kind| kind == socket2::Type::STREAM)
        {
            continue;
        }
        let peer = socket.peer_addr().ok().and_then(|peer| peer.as_socket());
        if !peer.is_some_and(|peer| servers.contains(&peer)) {
            continue;
        }
        if socket.tcp_nodelay().unwrap_or(true) {
            continue;
        }
        socket.set_tcp_nodelay(true)?;
        changed += 1;
    }
    Ok(changed)
}

/// Elsewhere the descriptors cannot be listed: Nagle's algorithm stays on.
#[cfg(not(target_os = "linux"))]
pub(super) fn disable_nagle(_servers: &[SocketAddr]) -> std::io::Result<usize> {
    Ok(0)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn connections_to_the_server_get_nodelay_and_others_do_not() {
        let server = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let other = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = server.local_addr().unwrap();
        let to_server = tokio::net::TcpStream::connect(address).await.unwrap();
        let to_other = tokio::net::TcpStream::connect(other.local_addr().unwrap())
            .await
            .unwrap();
        assert!(!to_server.nodelay().unwrap());

        let servers = server_addresses("127.0.0.1", address.port()).await;
        assert_eq!(servers, [address]);
        assert_eq!(disable_nagle(&servers).unwrap(), 1);
        assert!(to_server.nodelay().unwrap());
        assert!(!to_other.nodelay().unwrap());
        // Once set, it is left alone.
        assert_eq!(disable_nagle(&servers).unwrap(), 0);
    }
}

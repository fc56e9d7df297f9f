//! Network interfaces: which interface carries a local address, and its link speed
//! from sysfs (`/sys/class/net/<if>/speed`, Mb/s), which is the network peak.
//!
//! Loopback has no link, and virtual devices (veth, bridges, tun) report a made-up
//! speed (veth says 10000) or none: neither is a physical limit, so both give an
//! unknown peak with the reason instead of a number.

use std::net::IpAddr;

/// What is known about the interface carrying an address.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    /// Interface name, e.g. `eth0`, `lo`.
    pub(crate) name: String,
    /// Link speed in bit/s when the device is physical and reports one.
    pub(crate) speed_bps: Option<f64>,
    /// Why there is no speed, or where it came from.
    pub(crate) source: String,
}

/// The interface that owns local address `ip` (getifaddrs), if any.
pub(crate) fn interface_of(ip: IpAddr) -> Option<String> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs allocates a list we walk read-only and free below.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return None;
    }
    let mut found = None;
    let mut p = head;
    while !p.is_null() {
        // SAFETY: `p` is a node of the list returned by getifaddrs.
        let ifa = unsafe { &*p };
        p = ifa.ifa_next;
        if ifa.ifa_addr.is_null() || ifa.ifa_name.is_null() {
            continue;
        }
        // SAFETY: ifa_addr points at a sockaddr of the family it declares.
        let addr = unsafe {
            match i32::from((*ifa.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let a = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                    Some(IpAddr::from(u32::from_be(a.sin_addr.s_addr).to_be_bytes()))
                }
                libc::AF_INET6 => {
                    let a = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                    Some(IpAddr::from(a.sin6_addr.s6_addr))
                }
                _ => None,
            }
        };
        if addr == Some(ip) {
            // SAFETY: ifa_name is a NUL-terminated string owned by the list.
            let name = unsafe { std::ffi::CStr::from_ptr(ifa.ifa_name) };
            found = Some(name.to_string_lossy().into_owned());
            break;
        }
    }
    // SAFETY: `head` came from getifaddrs.
    unsafe { libc::freeifaddrs(head) };
    found
}

/// The link of the interface carrying local address `ip`.
pub(crate) fn link_of(ip: IpAddr) -> Link {
    if ip.is_loopback() {
        return Link {
            name: "lo".into(),
            speed_bps: None,
            source: "unknown: loopback has no link speed; its limit is the memory copy bandwidth (each byte is copied into and out of the kernel)".into(),
        };
    }
    let Some(name) = interface_of(ip) else {
        return Link {
            name: "?".into(),
            speed_bps: None,
            source: format!("unknown: no local interface carries {ip}"),
        };
    };
    let base = std::path::Path::new("/sys/class/net").join(&name);
    let speed = std::fs::read_to_string(base.join("speed"))
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok());
    let physical = base.join("device").exists();
    let (speed_bps, source) = match (physical, speed) {
        (true, Some(mbps)) if mbps > 0 => (
            Some(mbps as f64 * 1e6),
            format!("link speed of {name}: {mbps} Mb/s (/sys/class/net/{name}/speed)"),
        ),
        (true, _) => (
            None,
            format!("unknown: {name} reports no link speed (link down or driver without it)"),
        ),
        (false, Some(mbps)) if mbps > 0 => (
            None,
            format!("unknown: {name} is a virtual device; its {mbps} Mb/s is not a physical limit"),
        ),
        (false, _) => (
            None,
            format!("unknown: {name} is a virtual device without a link speed"),
        ),
    };
    Link {
        name,
        speed_bps,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_has_no_speed() {
        let l = link_of("127.0.0.1".parse().unwrap());
        assert_eq!(l.speed_bps, None);
        assert!(l.source.contains("loopback"));
        assert_eq!(
            interface_of("127.0.0.1".parse().unwrap()).as_deref(),
            Some("lo")
        );
    }
}

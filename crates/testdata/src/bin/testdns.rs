//! `testdns`: the tests' DNS server as a process, for benchmarks of
//! commands and services that verify crawlers by forward-confirmed reverse
//! DNS.
//!
//! `testdns COUNT [DOMAIN]` serves, on a free UDP and TCP port of
//! 127.0.0.1 (printed on standard output as `ADDR:PORT`), a PTR and the
//! matching A record for COUNT addresses counted up from 198.18.0.1 (the
//! benchmarking range, RFC 2544): `198.18.1.2` is
//! `crawl-198-18-1-2.DOMAIN` (DOMAIN defaults to `searchbot.test`). Any
//! other name answers NXDOMAIN. It serves until it is killed.

use std::io::Write as _;
use std::net::Ipv4Addr;
use std::process::ExitCode;

use botwarden_testdata::dns::{BackgroundDns, Zone};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(count) = args
        .next()
        .and_then(|c| c.replace('_', "").parse::<u32>().ok())
    else {
        let _ = writeln!(std::io::stderr(), "usage: testdns COUNT [DOMAIN]");
        return ExitCode::from(2);
    };
    let domain = args.next().unwrap_or_else(|| "searchbot.test".to_owned());
    let first = u32::from(Ipv4Addr::new(198, 18, 0, 1));
    let zone = (0..count).fold(Zone::new(), |zone, i| {
        let ip = Ipv4Addr::from(first + i).to_string();
        let name = format!("crawl-{}.{domain}", ip.replace('.', "-"));
        zone.ptr(&ip, &[&name]).a(&name, &[&ip])
    });
    let dns = BackgroundDns::start(zone);
    if writeln!(std::io::stdout(), "{}", dns.addr()).is_err() {
        return ExitCode::from(2);
    }
    loop {
        std::thread::park();
    }
}

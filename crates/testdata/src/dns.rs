//! An in-process DNS server on loopback for tests, answering from a table
//! built with [`Zone`], counting the queries it gets; and [`BlackHole`], a
//! UDP and TCP port that never answers.
//!
//! Names without records answer NXDOMAIN; names with records of other types
//! answer NODATA; negative answers carry an SOA whose minimum is the zone's
//! negative TTL. Answers too large for the client's UDP buffer are
//! truncated, so the client repeats them over TCP.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use hickory_proto::op::{Metadata, ResponseCode};
use hickory_proto::rr::rdata::{A, AAAA, PTR, SOA};
use hickory_proto::rr::{LowerName, Name, RData, Record, RecordType};
use hickory_server::Server;
use hickory_server::net::runtime::Time;
use hickory_server::net::xfer::Protocol;
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::MessageResponseBuilder;

/// The records a [`TestDns`] serves.
#[derive(Debug, Clone)]
pub struct Zone {
    records: HashMap<LowerName, Vec<Record>>,
    servfail: HashSet<LowerName>,
    ttl: u32,
    negative_ttl: u32,
    delay: Duration,
}

impl Default for Zone {
    fn default() -> Self {
        Self::new()
    }
}

/// The owner name of `name_or_ip`: the reverse name of an address, else
/// the name itself (absolute).
pub fn owner(name_or_ip: &str) -> Name {
    let mut name = match name_or_ip.parse::<IpAddr>() {
        Ok(ip) => Name::from(ip),
        Err(_) => Name::from_ascii(name_or_ip).expect("a valid test name"),
    };
    name.set_fqdn(true);
    name
}

impl Zone {
    /// An empty zone; records get a TTL of one hour and negative answers a
    /// TTL of one minute unless changed.
    pub fn new() -> Self {
        Self {
            records: HashMap::new(),
            servfail: HashSet::new(),
            ttl: 3600,
            negative_ttl: 60,
            delay: Duration::ZERO,
        }
    }

    /// The TTL of the records added after this call.
    pub fn ttl(mut self, secs: u32) -> Self {
        self.ttl = secs;
        self
    }

    /// The negative TTL (SOA minimum) of NXDOMAIN and NODATA answers.
    pub fn negative_ttl(mut self, secs: u32) -> Self {
        self.negative_ttl = secs;
        self
    }

    /// Waits this long before answering each query.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    fn add(mut self, owner_name: Name, data: RData) -> Self {
        let key = LowerName::new(&owner_name);
        let record = Record::from_rdata(owner_name, self.ttl, data);
        self.records.entry(key).or_default().push(record);
        self
    }

    /// PTR records of an address, in this order.
    pub fn ptr(self, ip: &str, names: &[&str]) -> Self {
        let ip: IpAddr = ip.parse().expect("a test address");
        names.iter().fold(self, |zone, name| {
            zone.add(Name::from(ip), RData::PTR(PTR(owner(name))))
        })
    }

    /// A records of a name, in this order.
    pub fn a(self, name: &str, ips: &[&str]) -> Self {
        ips.iter().fold(self, |zone, ip| {
            zone.add(
                owner(name),
                RData::A(A(ip.parse().expect("an IPv4 address"))),
            )
        })
    }

    /// AAAA records of a name, in this order.
    pub fn aaaa(self, name: &str, ips: &[&str]) -> Self {
        ips.iter().fold(self, |zone, ip| {
            zone.add(
                owner(name),
                RData::AAAA(AAAA(ip.parse().expect("an IPv6 address"))),
            )
        })
    }

    /// Every query of this name (or of the reverse name of this address)
    /// is answered SERVFAIL.
    pub fn servfail(mut self, name_or_ip: &str) -> Self {
        self.servfail.insert(LowerName::new(&owner(name_or_ip)));
        self
    }
}

/// Counters and zone shared by the server's tasks and the test.
#[derive(Debug, Default)]
struct State {
    zone: RwLock<Zone>,
    queries: Mutex<HashMap<(LowerName, RecordType), usize>>,
    total: AtomicUsize,
    tcp: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// A DNS server on 127.0.0.1 (UDP and TCP on one port picked free), running
/// until dropped.
pub struct TestDns {
    addr: SocketAddr,
    state: Arc<State>,
    _server: Server<Handler>,
}

impl TestDns {
    /// Starts serving `zone` on the current Tokio runtime.
    pub async fn start(zone: Zone) -> Self {
        let (udp, tcp) = bind_pair();
        let addr = udp.local_addr().expect("bound");
        let state = Arc::new(State {
            zone: RwLock::new(zone),
            ..State::default()
        });
        let mut server = Server::new(Handler {
            state: Arc::clone(&state),
        });
        server.register_socket(tokio::net::UdpSocket::from_std(udp).expect("tokio UDP socket"));
        server.register_listener(
            tokio::net::TcpListener::from_std(tcp).expect("tokio TCP listener"),
            Duration::from_secs(10),
            64,
        );
        Self {
            addr,
            state,
            _server: server,
        }
    }

    /// Where it listens (UDP and TCP).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queries received, all names and types, UDP and TCP.
    pub fn queries(&self) -> usize {
        self.state.total.load(Ordering::SeqCst)
    }

    /// Queries received over TCP.
    pub fn tcp_queries(&self) -> usize {
        self.state.tcp.load(Ordering::SeqCst)
    }

    /// Queries received for one name (or the reverse name of an address) and
    /// type.
    pub fn queries_for(&self, name_or_ip: &str, rtype: RecordType) -> usize {
        let key = (LowerName::new(&owner(name_or_ip)), rtype);
        self.state
            .queries
            .lock()
            .expect("not poisoned")
            .get(&key)
            .copied()
            .unwrap_or(0)
    }

    /// The most queries it was answering at one time.
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }

    /// Serves another zone from now on.
    pub fn set_zone(&self, zone: Zone) {
        *self.state.zone.write().expect("not poisoned") = zone;
    }
}

/// A UDP socket and a TCP listener on the same free loopback port.
fn bind_pair() -> (std::net::UdpSocket, std::net::TcpListener) {
    for _ in 0..100 {
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind UDP on loopback");
        let Ok(tcp) = std::net::TcpListener::bind(udp.local_addr().expect("bound")) else {
            continue;
        };
        udp.set_nonblocking(true).expect("non-blocking");
        tcp.set_nonblocking(true).expect("non-blocking");
        return (udp, tcp);
    }
    panic!("no free loopback port for both UDP and TCP");
}

/// A loopback port, UDP and TCP, that takes queries and never answers.
pub struct BlackHole {
    addr: SocketAddr,
    _udp: std::net::UdpSocket,
    _tcp: std::net::TcpListener,
}

impl BlackHole {
    /// Binds the port.
    pub fn start() -> Self {
        let (udp, tcp) = bind_pair();
        Self {
            addr: udp.local_addr().expect("bound"),
            _udp: udp,
            _tcp: tcp,
        }
    }

    /// The port's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

struct Handler {
    state: Arc<State>,
}

/// Decrements the in-flight count when dropped.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl RequestHandler for Handler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        let state = &*self.state;
        let builder = MessageResponseBuilder::from_message_request(request);
        let Ok(info) = request.request_info() else {
            let response = builder.error_msg(&request.metadata, ResponseCode::FormErr);
            return send(&mut response_handle, response, &request.metadata).await;
        };
        let name = info.query.name().clone();
        let rtype = info.query.query_type();
        state.total.fetch_add(1, Ordering::SeqCst);
        if info.protocol == Protocol::Tcp {
            state.tcp.fetch_add(1, Ordering::SeqCst);
        }
        *state
            .queries
            .lock()
            .expect("not poisoned")
            .entry((name.clone(), rtype))
            .or_default() += 1;

        let (delay, servfail, answers, exists, negative_ttl) = {
            let zone = state.zone.read().expect("not poisoned");
            let at_name = zone.records.get(&name);
            let answers: Vec<Record> = at_name
                .into_iter()
                .flatten()
                .filter(|r| r.record_type() == rtype)
                .cloned()
                .collect();
            (
                zone.delay,
                zone.servfail.contains(&name),
                answers,
                at_name.is_some(),
                zone.negative_ttl,
            )
        };
        {
            let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            state.max_in_flight.fetch_max(now, Ordering::SeqCst);
            let _in_flight = InFlight(&state.in_flight);
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }

        let mut metadata = Metadata::response_from_request(&request.metadata);
        metadata.authoritative = true;
        if servfail {
            let response = builder.error_msg(&request.metadata, ResponseCode::ServFail);
            return send(&mut response_handle, response, &request.metadata).await;
        }
        let soa = (answers.is_empty()).then(|| {
            metadata.response_code = if exists {
                ResponseCode::NoError
            } else {
                ResponseCode::NXDomain
            };
            let soa = SOA::new(
                Name::from_ascii("ns.test.").expect("valid"),
                Name::from_ascii("hostmaster.test.").expect("valid"),
                1,
                3600,
                600,
                86400,
                negative_ttl,
            );
            Record::from_rdata(Name::root(), negative_ttl, RData::SOA(soa))
        });
        let mut builder = builder;
        if let Some(edns) = &request.edns {
            builder.edns(edns);
        }
        let response = builder.build(metadata, answers.iter(), [], soa.iter(), []);
        send(&mut response_handle, response, &request.metadata).await
    }
}

/// Sends a response; on a send error, reports SERVFAIL to the server loop.
async fn send<'a, R: ResponseHandler>(
    handle: &mut R,
    response: hickory_server::zone_handler::MessageResponse<
        '_,
        'a,
        impl Iterator<Item = &'a Record> + Send + 'a,
        impl Iterator<Item = &'a Record> + Send + 'a,
        impl Iterator<Item = &'a Record> + Send + 'a,
        impl Iterator<Item = &'a Record> + Send + 'a,
    >,
    request: &Metadata,
) -> ResponseInfo {
    match handle.send_response(response).await {
        Ok(info) => info,
        Err(_) => {
            let mut metadata = Metadata::response_from_request(request);
            metadata.response_code = ResponseCode::ServFail;
            hickory_proto::op::Header {
                metadata,
                counts: hickory_proto::op::HeaderCounts::default(),
            }
            .into()
        }
    }
}

/// A [`TestDns`] on a runtime of its own, for tests that are not async
/// (those that run the `botwarden` binary against it).
pub struct BackgroundDns {
    dns: TestDns,
    _runtime: tokio::runtime::Runtime,
}

impl BackgroundDns {
    /// Starts serving `zone` on a new runtime with one worker thread.
    pub fn start(zone: Zone) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a Tokio runtime for the test DNS server");
        let dns = runtime.block_on(TestDns::start(zone));
        Self {
            dns,
            _runtime: runtime,
        }
    }
}

impl std::ops::Deref for BackgroundDns {
    type Target = TestDns;

    fn deref(&self) -> &TestDns {
        &self.dns
    }
}

//! The tests' Redis and NATS servers start, answer and stop.

use std::net::TcpStream;
use std::time::Duration;

use botwarden_testdata::nats::NatsServer;
use botwarden_testdata::redis::{RedisCluster, RedisServer};

#[test]
fn a_standalone_redis_answers_and_dies_when_killed() {
    let mut redis = RedisServer::start();
    assert_eq!(redis.command(&["SET", "k", "v"]).as_deref(), Some("+OK"));
    assert_eq!(redis.command(&["GET", "k"]).as_deref(), Some("$1"));
    redis.kill();
    assert!(!redis.is_running());
    assert_eq!(redis.command(&["PING"]), None);
}

#[test]
fn a_three_node_cluster_forms_and_redirects_keys() {
    let cluster = RedisCluster::start(3);
    assert_eq!(cluster.urls().len(), 3);
    // A key lives on exactly one node; the two others redirect with MOVED.
    let answers: Vec<String> = cluster
        .nodes()
        .iter()
        .map(|n| n.command(&["SET", "botwarden", "1"]).expect("answer"))
        .collect();
    assert_eq!(
        answers.iter().filter(|a| *a == "+OK").count(),
        1,
        "{answers:?}"
    );
    assert_eq!(
        answers.iter().filter(|a| a.starts_with("-MOVED")).count(),
        2,
        "{answers:?}"
    );
}

#[test]
fn nats_accepts_connections_after_a_restart_on_the_same_port() {
    let mut nats = NatsServer::start();
    let addr = nats.addr();
    assert!(nats.url().ends_with(&addr.port().to_string()));
    nats.kill();
    assert!(TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err());
    nats.restart();
    assert!(TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok());
}

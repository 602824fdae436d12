//! The Redis coordinator of a shared crawl, on a real Redis: leases that
//! run out return, a host's parallelism and the seen-set hold across
//! workers (each with its own connection), and the throttle the scripts
//! apply is the crawler's, step for step.

use std::time::{Duration, Instant};

use botwarden_crawl::{
    Coordinator, CoordinatorConfig, CrawlConfig, Finish, Lease, Offer, Offered, Outcome, Throttle,
    ThrottleConfig,
};
use botwarden_scale::RedisCoordinator;
use botwarden_testdata::redis::RedisServer;
use url::Url;

const HOST: &str = "site.test";

fn config(throttle: ThrottleConfig, lease: Duration) -> CoordinatorConfig {
    CoordinatorConfig::of(
        &CrawlConfig {
            throttle,
            ..CrawlConfig::default()
        },
        lease,
    )
}

async fn worker(redis: &RedisServer, cfg: &CoordinatorConfig) -> RedisCoordinator {
    RedisCoordinator::connect(&redis.url(), "test", cfg.clone())
        .await
        .expect("connect")
}

fn offer(path: &str) -> Offer {
    Offer {
        url: format!("http://{HOST}{path}"),
        depth: 1,
        host: HOST.into(),
    }
}

/// Claims until something is leased (a host's delay or a lease's
/// expiry may hold it back for a while).
async fn claim_one(c: &RedisCoordinator, worker: &str) -> Lease {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let claim = c.claim(worker, 1).await.expect("claim");
        if let Some(l) = claim.leases.into_iter().next() {
            return l;
        }
        assert!(Instant::now() < deadline, "nothing leased in 30 s");
        tokio::time::sleep(claim.wait.unwrap_or(Duration::from_millis(20))).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_not_finished_returns_to_another_worker() {
    let redis = RedisServer::start();
    let cfg = config(ThrottleConfig::default(), Duration::from_millis(300));
    let (a, b) = (worker(&redis, &cfg).await, worker(&redis, &cfg).await);
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    assert_eq!(a.start(&seed).await.expect("start"), seed.as_str());
    assert_eq!(b.start(&seed).await.expect("start"), seed.as_str());
    let held = a.claim("a", 5).await.expect("claim");
    assert_eq!(held.leases.len(), 1, "the seed, once: {held:?}");
    assert!(b.claim("b", 5).await.expect("claim").leases.is_empty());
    // "a" dies holding it: once the lease runs out, "b" gets it.
    let again = claim_one(&b, "b").await;
    assert_eq!(again.url, seed.as_str());
    let status = b.status().await.expect("status");
    assert_eq!(
        (status.hosts[0].leased, status.hosts[0].requeued),
        (1, 1),
        "{status:?}"
    );
    // "a" finishing late changes nothing: the lease is "b"'s now.
    let late = Finish::Fetched {
        outcome: Some(Outcome::Status(200)),
        pause: None,
    };
    assert_eq!(
        a.finish("a", &held.leases[0], late).await.expect("finish"),
        None
    );
    let status = b.status().await.expect("status");
    assert_eq!((status.hosts[0].leased, status.hosts[0].done), (1, 0));
    b.finish("b", &again, late).await.expect("finish");
    assert!(b.is_finished().await.expect("finished"));
    assert_eq!(b.status().await.expect("status").hosts[0].done, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallelism_and_the_seen_set_hold_across_workers() {
    let redis = RedisServer::start();
    let cfg = config(
        ThrottleConfig {
            max_parallel: 2,
            ..ThrottleConfig::default()
        },
        Duration::from_secs(60),
    );
    let (a, b) = (worker(&redis, &cfg).await, worker(&redis, &cfg).await);
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    let offers: Vec<Offer> = (0..10).map(|i| offer(&format!("/{i}"))).collect();
    let answers = a.offer(offers.clone()).await.expect("offer");
    assert!(answers.iter().all(|o| *o == Offered::Queued), "{answers:?}");
    let again = b.offer(offers).await.expect("offer");
    assert!(again.iter().all(|o| *o == Offered::Known), "{again:?}");

    let first = a.claim("a", 5).await.expect("claim").leases;
    assert_eq!(first.len(), 2, "two in flight at most");
    assert!(b.claim("b", 5).await.expect("claim").leases.is_empty());
    a.finish(
        "a",
        &first[0],
        Finish::Fetched {
            outcome: Some(Outcome::Status(200)),
            pause: None,
        },
    )
    .await
    .expect("finish");
    let next = b.claim("b", 5).await.expect("claim").leases;
    assert_eq!(next.len(), 1, "one freed");
    // First in, first out, each URL once.
    let mut urls: Vec<&str> = first.iter().chain(&next).map(|l| l.url.as_str()).collect();
    urls.dedup();
    assert_eq!(
        urls,
        [
            "http://site.test/",
            "http://site.test/0",
            "http://site.test/1"
        ]
    );
    let status = a.status().await.expect("status");
    assert_eq!(status.hosts[0].queued, 8);
    assert_eq!(status.hosts[0].leased, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_throttle_in_redis_is_the_crawlers() {
    let redis = RedisServer::start();
    let throttle = ThrottleConfig {
        slower: Duration::from_millis(3),
        faster: Duration::from_millis(2),
        max_delay: Duration::from_millis(9),
        max_parallel: 5,
        ..ThrottleConfig::default()
    };
    let cfg = config(throttle, Duration::from_secs(60));
    let (a, b) = (worker(&redis, &cfg).await, worker(&redis, &cfg).await);
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    let n: usize = 400;
    a.offer((0..n).map(|i| offer(&format!("/{i}"))).collect())
        .await
        .expect("offer");
    let mut local = Throttle::new(throttle, throttle.min_delay, throttle.max_parallel);
    // Bursts of trouble and calm: slower, then faster again.
    let outcome = |i: usize| match i {
        40..=90 if i.is_multiple_of(3) => Outcome::Status(503),
        200..=230 => Outcome::TimedOut,
        _ => Outcome::Status(200),
    };
    let mut seen = 0;
    for i in 0..=n {
        // The two workers take turns: the window is the host's, not a
        // worker's.
        let (c, name) = if i.is_multiple_of(2) {
            (&a, "a")
        } else {
            (&b, "b")
        };
        let lease = claim_one(c, name).await;
        let o = outcome(i);
        let remote = c
            .finish(
                name,
                &lease,
                Finish::Fetched {
                    outcome: Some(o),
                    pause: None,
                },
            )
            .await
            .expect("finish");
        let want = local.record(o);
        assert_eq!(remote, want, "request {}", i + 1);
        seen += usize::from(want.is_some());
    }
    assert!(seen >= 4, "the sequence made {seen} adjustments");
    let status = a.status().await.expect("status");
    assert_eq!(status.hosts[0].delay_ms, local.delay().as_millis() as u64);
    assert_eq!(status.hosts[0].parallel, u64::from(local.parallel()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_cluster_each_hosts_steps_stay_on_its_slot() {
    let cluster = botwarden_testdata::redis::RedisCluster::start(3);
    let urls = cluster.urls().join(",");
    let cfg = config(
        ThrottleConfig {
            max_parallel: 1,
            ..ThrottleConfig::default()
        },
        Duration::from_secs(60),
    );
    let connect = || RedisCoordinator::connect(&urls, "test", cfg.clone());
    let (a, b) = (
        connect().await.expect("connect"),
        connect().await.expect("connect"),
    );
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    // Hosts on different slots, each with its own politeness.
    let offers: Vec<Offer> = ["one.test", "two.test", "three.test"]
        .iter()
        .map(|h| Offer {
            url: format!("http://{h}/"),
            depth: 1,
            host: (*h).to_owned(),
        })
        .collect();
    let answers = a.offer(offers.clone()).await.expect("offer");
    assert!(answers.iter().all(|o| *o == Offered::Queued), "{answers:?}");
    assert!(
        b.offer(offers)
            .await
            .expect("offer")
            .iter()
            .all(|o| *o == Offered::Known)
    );
    let leased = a.claim("a", 10).await.expect("claim").leases;
    let mut hosts: Vec<&str> = leased.iter().map(|l| l.host.as_str()).collect();
    hosts.sort_unstable();
    assert_eq!(
        hosts,
        ["one.test", "site.test", "three.test", "two.test"],
        "one per host (parallelism 1)"
    );
    assert!(b.claim("b", 10).await.expect("claim").leases.is_empty());
    // The status reads every host's slot, and the time, on a cluster.
    let status = b.status().await.expect("status");
    assert_eq!(status.hosts.len(), 4);
    assert!(status.hosts.iter().all(|h| h.in_flight == 1), "{status:?}");
    for l in &leased {
        a.finish("a", l, Finish::Skipped).await.expect("finish");
    }
    assert!(b.is_finished().await.expect("finished"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_shows_each_hosts_throttle_and_each_workers_progress() {
    let redis = RedisServer::start();
    let cfg = config(
        ThrottleConfig {
            min_delay: Duration::ZERO,
            max_parallel: 4,
            ..ThrottleConfig::default()
        },
        Duration::from_secs(60),
    );
    let (a, b) = (worker(&redis, &cfg).await, worker(&redis, &cfg).await);
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    a.offer((0..6).map(|i| offer(&format!("/{i}"))).collect())
        .await
        .expect("offer");
    // Worker b takes a request and keeps it in flight.
    let _held = claim_one(&b, "b").await;
    // Worker a: one answered, one 503 with a minute's Retry-After.
    for outcome in [Outcome::Status(200), Outcome::Status(503)] {
        let lease = claim_one(&a, "a").await;
        let pause = (outcome == Outcome::Status(503)).then_some(Duration::from_secs(60));
        a.finish(
            "a",
            &lease,
            Finish::Fetched {
                outcome: Some(outcome),
                pause,
            },
        )
        .await
        .expect("finish");
    }
    // The site's robots.txt asks for 2 s between requests.
    a.put_robots(
        HOST,
        &format!("http://{HOST}"),
        botwarden_crawl::RobotsRead::Ready {
            body: b"User-agent: *\nCrawl-delay: 2\n".to_vec(),
            blanket: None,
            why: "fetched".into(),
        },
        Some(Duration::from_secs(2)),
    )
    .await
    .expect("robots");
    for (name, stats) in [
        (
            "a",
            botwarden_crawl::WorkerStats {
                fetched: 2,
                errors: 1,
                ..botwarden_crawl::WorkerStats::default()
            },
        ),
        (
            "b",
            botwarden_crawl::WorkerStats {
                in_flight: 1,
                ..botwarden_crawl::WorkerStats::default()
            },
        ),
    ] {
        a.report(name, stats).await.expect("report");
    }
    let status = b.status().await.expect("status");
    let host = &status.hosts[0];
    assert_eq!(host.host, HOST);
    assert_eq!((host.done, host.errors), (2, 1), "{host:?}");
    assert_eq!((host.in_flight, host.leased), (1, 1), "{host:?}");
    assert_eq!((host.window, host.window_errors), (2, 1), "{host:?}");
    assert_eq!(host.floor_ms, 2000, "{host:?}");
    assert!(host.delay_ms >= 2000, "{host:?}");
    assert!(host.paused_ms > 0 && host.paused_ms <= 60_000, "{host:?}");
    let workers: Vec<(&str, u64, u64, u64, u64)> = status
        .workers
        .iter()
        .map(|w| (w.name.as_str(), w.fetched, w.errors, w.in_flight, w.leased))
        .collect();
    assert_eq!(workers, [("a", 2, 1, 0, 0), ("b", 0, 0, 1, 1)]);
    assert!(status.workers.iter().all(|w| w.reported_ms > 0));
}

/// A crawl of `HOST` and `more` hosts (on other slots of a cluster),
/// joined by one worker.
async fn crawl_of(urls: &str, cfg: &CoordinatorConfig, more: &[&str]) -> RedisCoordinator {
    let a = RedisCoordinator::connect(urls, "test", cfg.clone())
        .await
        .expect("connect");
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    let offers: Vec<Offer> = more
        .iter()
        .map(|h| Offer {
            url: format!("http://{h}/"),
            depth: 1,
            host: (*h).to_owned(),
        })
        .collect();
    a.offer(offers).await.expect("offer");
    a
}

const MORE: [&str; 3] = ["one.test", "two.test", "three.test"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_back_without_one_hosts_data_stops_the_workers() {
    let mut cluster = botwarden_testdata::redis::RedisCluster::start(3);
    let urls = cluster.urls().join(",");
    let cfg = config(ThrottleConfig::default(), Duration::from_secs(60));
    // A host whose slot is on neither the crawl's record's node nor the
    // seed host's: only that host's state is lost.
    let meta = cluster.node_of("botwarden:crawl:test:meta");
    let seed_node = cluster.node_of(&format!("botwarden:crawl:test:{{{HOST}}}:state"));
    let names: Vec<String> = (0..64).map(|i| format!("h{i}.test")).collect();
    let (host, node) = names
        .iter()
        .map(|h| {
            (
                h.as_str(),
                cluster.node_of(&format!("botwarden:crawl:test:{{{h}}}:state")),
            )
        })
        .find(|(_, n)| *n != meta && *n != seed_node)
        .expect("a host on a third node");
    let a = crawl_of(&urls, &cfg, &["one.test", host]).await;
    let addr = cluster.nodes()[node].addr().to_string();
    cluster.nodes_mut()[node].restart_empty();

    let err = a
        .claim("a", 10)
        .await
        .expect_err("a lost host stops a claim");
    let text = err.to_string();
    assert!(text.contains("shared state lost"), "{text}");
    assert!(text.contains(&format!("host {host}")), "{text}");
    assert!(text.contains(&addr), "{text}");
    assert!(text.contains("crawl reseed"), "{text}");
    // Never finished: the host's queue reads empty, but it is lost.
    assert!(a.is_finished().await.is_err());
    // A worker that joins now is stopped too.
    let b = RedisCoordinator::connect(&urls, "test", cfg.clone())
        .await
        .expect("connect");
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    b.start(&seed).await.expect("start");
    assert!(b.claim("b", 10).await.is_err());
    // Offering to the host does not create it anew.
    let offer = Offer {
        url: format!("http://{host}/new"),
        depth: 2,
        host: host.to_owned(),
    };
    assert!(b.offer(vec![offer]).await.is_err());
    let status = b.status().await.expect("status");
    assert_eq!(status.lost.len(), 1, "{status:?}");
    assert!(
        status.lost[0].contains(host) && status.lost[0].contains(&addr),
        "{status:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_back_without_data_stops_the_workers() {
    let mut redis = RedisServer::start();
    let cfg = config(ThrottleConfig::default(), Duration::from_secs(60));
    let a = crawl_of(&redis.url(), &cfg, &MORE).await;
    let held = a.claim("a", 1).await.expect("claim").leases;
    assert_eq!(held.len(), 1);
    redis.restart_empty();
    let err = a.claim("a", 10).await.expect_err("lost");
    assert!(err.to_string().contains("the crawl's record"), "{err}");
    assert!(a.is_finished().await.is_err(), "never finished");
    let late = Finish::Fetched {
        outcome: Some(Outcome::Status(200)),
        pause: None,
    };
    assert!(a.finish("a", &held[0], late).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_whose_state_went_back_is_lost() {
    let redis = RedisServer::start();
    let cfg = config(ThrottleConfig::default(), Duration::from_secs(60));
    let a = crawl_of(&redis.url(), &cfg, &MORE).await;
    a.claim("a", 10).await.expect("claim");
    // As if the node came back from an older copy.
    let state = format!("botwarden:crawl:test:{{{HOST}}}:state");
    assert!(
        redis
            .command(&["HINCRBY", &state, "steps", "-2"])
            .is_some_and(|l| l.starts_with(':'))
    );
    let err = a.claim("a", 10).await.expect_err("went back");
    assert!(err.to_string().contains("went back"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_renewed_stays_and_one_not_renewed_returns() {
    let redis = RedisServer::start();
    let cfg = config(ThrottleConfig::default(), Duration::from_millis(400));
    let (a, b) = (worker(&redis, &cfg).await, worker(&redis, &cfg).await);
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    b.start(&seed).await.expect("start");
    let held = a.claim("a", 5).await.expect("claim").leases;
    assert_eq!(held.len(), 1);
    // "a" is slow but alive: it renews; "b" gets nothing for four leases'
    // time.
    let until = Instant::now() + Duration::from_millis(1600);
    while Instant::now() < until {
        a.renew("a", &held).await.expect("renew");
        assert!(
            b.claim("b", 5).await.expect("claim").leases.is_empty(),
            "a renewed lease went to another worker"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // "a" dies: its lease returns.
    let again = claim_one(&b, "b").await;
    assert_eq!(again.url, seed.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_is_told_while_waited_out_then_given_up() {
    let redis = RedisServer::start();
    let cfg = config(ThrottleConfig::default(), Duration::from_secs(60));
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&told);
    let a = worker(&redis, &cfg).await.with_patience(
        botwarden_scale::Patience {
            call: Duration::from_millis(500),
            give_up: Duration::from_secs(4),
            tell_every: Duration::from_secs(1),
        },
        move |o| sink.lock().expect("lock").push(o.clone()),
    );
    let seed = Url::parse(&format!("http://{HOST}/")).expect("url");
    a.start(&seed).await.expect("start");
    // Down for two seconds, back with its data: waited out.
    assert_eq!(redis.command(&["SAVE"]).as_deref(), Some("+OK"));
    let addr = redis.addr().to_string();
    let mut redis = redis;
    redis.kill();
    let back = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(2));
        redis.start_again();
        redis
    });
    let claim = a.claim("a", 5).await.expect("waited out");
    assert_eq!(claim.leases.len(), 1);
    let mut redis = back.join().expect("restart");
    {
        let told = told.lock().expect("lock");
        assert!(!told.is_empty(), "the outage was not told");
        assert!(
            told.iter().all(|o| o.node == addr && o.crawl == "test"),
            "{told:?}"
        );
        assert!(
            told.iter().all(|o| o.waited >= Duration::from_secs(1)),
            "{told:?}"
        );
    }
    // Down for good: given up after the limit.
    redis.kill();
    let started = Instant::now();
    let err = a.claim("a", 5).await.expect_err("gave up");
    assert!(started.elapsed() >= Duration::from_secs(4));
    assert!(started.elapsed() < Duration::from_secs(30));
    let text = err.to_string();
    assert!(
        text.contains("unreachable") && text.contains(&addr),
        "{text}"
    );
    assert!(!text.contains("redis://"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_calls_a_silent_worker_dead_and_names_a_node_down() {
    let mut cluster = botwarden_testdata::redis::RedisCluster::start(3);
    let urls = cluster.urls().join(",");
    let cfg = config(ThrottleConfig::default(), Duration::from_secs(60));
    let a = crawl_of(&urls, &cfg, &MORE).await;
    a.report("alive", botwarden_crawl::WorkerStats::default())
        .await
        .expect("report");
    // A worker that reported long ago and never ended.
    let node = cluster.node_of("botwarden:crawl:test:worker:gone");
    assert_eq!(
        cluster.nodes()[node]
            .command(&[
                "HSET",
                "botwarden:crawl:test:worker:gone",
                "reported_ms",
                "1000",
                "every_ms",
                "1000",
                "ended",
                "0"
            ])
            .as_deref(),
        Some(":3")
    );
    a.report("gone", botwarden_crawl::WorkerStats::default())
        .await
        .expect("listed");
    assert!(
        cluster.nodes()[node]
            .command(&[
                "HSET",
                "botwarden:crawl:test:worker:gone",
                "reported_ms",
                "1000"
            ])
            .is_some()
    );
    let status = a.status().await.expect("status");
    let dead: Vec<(&str, bool)> = status
        .workers
        .iter()
        .map(|w| (w.name.as_str(), w.dead))
        .collect();
    assert_eq!(dead, [("alive", false), ("gone", true)], "{status:?}");

    // A node down: the status answers, naming what it could not read.
    let down = cluster.node_of(&format!("botwarden:crawl:test:{{{HOST}}}:state"));
    let addr = cluster.nodes()[down].addr().to_string();
    cluster.nodes_mut()[down].kill();
    let a = a.with_call_timeout(Duration::from_millis(500));
    let started = Instant::now();
    let status = a.status().await.expect("status");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        status.unread.iter().any(|u| u.contains(&addr)),
        "{status:?}"
    );
}

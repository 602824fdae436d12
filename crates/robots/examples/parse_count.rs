//! Parses, compiles and answers every file of the given directories once,
//! for counting the instructions the engine spends (run it under
//! `valgrind --tool=cachegrind --cache-sim=no`): a measure that does not
//! depend on the machine's load. Prints the files, bytes and a checksum of
//! the answers, so that two builds can be seen to do the same work.

#![allow(clippy::print_stdout)] // its output is the point

use std::path::Path;

use botwarden_robots::{Profile, Robots, RobotsTxt, TokenChain};

fn main() {
    let mut bodies = Vec::new();
    for dir in std::env::args().skip(1) {
        let mut names: Vec<_> = std::fs::read_dir(Path::new(&dir))
            .expect("a directory")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_none_or(|e| e != "tsv"))
            .collect();
        names.sort();
        for p in names {
            if let Ok(b) = std::fs::read(&p) {
                bodies.push(b);
            }
        }
    }
    let chains = [
        TokenChain::parse("Googlebot"),
        TokenChain::parse("examplebot"),
    ];
    let paths = [
        "/",
        "/search?q=1",
        "/admin/",
        "/wp-admin/admin-ajax.php",
        "/a/b/c.html",
    ];
    let (mut bytes, mut allowed) = (0usize, 0u64);
    for body in &bodies {
        bytes += body.len();
        let txt = RobotsTxt::parse(body.as_slice());
        for profile in [&Profile::RFC9309, &Profile::GOOGLE] {
            let robots = Robots::new(&txt, profile);
            for chain in &chains {
                let m = robots.matcher(chain);
                for p in paths {
                    allowed += u64::from(m.is_allowed(p));
                }
            }
        }
    }
    println!("{} files, {bytes} bytes, {allowed} allowed", bodies.len());
}

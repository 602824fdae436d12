//! Web-server configuration that uses the exports.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::Error;

/// The web servers [`snippet`] writes configuration for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Server {
    /// Apache httpd 2.4 (mod_rewrite, mod_authz_core).
    Apache,
    /// nginx (geo, map, rewrite, auth_basic).
    Nginx,
    /// HAProxy 2.2 or later (map_ip, http-request rules).
    Haproxy,
}

/// Which export the Apache configuration consults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ApacheLookup {
    /// `RewriteCond DIR/all-ok-bots/%{REMOTE_ADDR} -f` on the ACAP tree.
    #[default]
    AcapTree,
    /// `${botwarden:%{REMOTE_ADDR}}` on the RewriteMap text file.
    RewriteMap,
}

/// HTTP basic authentication that verified crawlers skip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicAuth {
    /// The URL-path prefix that needs authentication (`/` for the whole site).
    pub path: String,
    /// The realm shown to users.
    pub realm: String,
    /// The password file (htpasswd format) for Apache and nginx.
    pub user_file: PathBuf,
    /// The `userlist` section HAProxy checks credentials against.
    pub haproxy_userlist: String,
}

/// Where the exports are, and what the configuration does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetOptions {
    /// The ACAP tree ([`write_acap_tree`](super::write_acap_tree)).
    pub acap_dir: PathBuf,
    /// The Apache RewriteMap ([`apache_rewrite_map`](super::apache_rewrite_map)).
    pub apache_map: PathBuf,
    /// Which of the two Apache consults.
    pub apache_lookup: ApacheLookup,
    /// The nginx geo include ([`nginx_geo`](super::nginx_geo)).
    pub nginx_geo: PathBuf,
    /// The HAProxy map ([`haproxy_map`](super::haproxy_map)).
    pub haproxy_map: PathBuf,
    /// The file served as `/robots.txt` to verified crawlers.
    pub verified_robots: PathBuf,
    /// Basic authentication that verified crawlers skip; `None` for none.
    pub basic_auth: Option<BasicAuth>,
}

impl Default for SnippetOptions {
    fn default() -> Self {
        let var = Path::new("/var/lib/botwarden");
        Self {
            acap_dir: var.join("acap"),
            apache_map: var.join("apache-rewritemap.txt"),
            apache_lookup: ApacheLookup::default(),
            nginx_geo: var.join("nginx-geo.conf"),
            haproxy_map: var.join("haproxy.map"),
            verified_robots: var.join("robots-verified.txt"),
            basic_auth: Some(BasicAuth {
                path: "/".to_owned(),
                realm: "Restricted".to_owned(),
                user_file: PathBuf::from("/etc/botwarden/htpasswd"),
                haproxy_userlist: "botwarden".to_owned(),
            }),
        }
    }
}

/// Where a part of a snippet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SnippetContext {
    /// Apache: the server configuration or a `<VirtualHost>`.
    ApacheServer,
    /// nginx: the `http { }` block.
    NginxHttp,
    /// nginx: a `server { }` block.
    NginxServer,
    /// HAProxy: a `frontend` or `listen` section in `mode http`.
    HaproxyFrontend,
}

/// One piece of configuration and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetPart {
    /// Where the text goes.
    pub context: SnippetContext,
    /// The configuration, starting with a comment that says where it goes.
    pub text: String,
}

impl SnippetOptions {
    /// Checks the options for a snippet for `server`: none may hold a
    /// control character (a line break would start a new configuration
    /// line, and the servers' quoting has no escape for one), whichever
    /// server is asked for; for nginx, the values it expands variables in
    /// (`verified_robots`, `nginx_geo`, the password file and the realm)
    /// may not hold `$`; and the authentication path must start with `/`.
    ///
    /// # Errors
    /// [`Error::Snippet`] for the first bad option, named by its field.
    pub fn check(&self, server: Server) -> Result<(), Error> {
        let paths = [
            ("acap_dir", &self.acap_dir, false),
            ("apache_map", &self.apache_map, false),
            ("nginx_geo", &self.nginx_geo, true),
            ("haproxy_map", &self.haproxy_map, false),
            ("verified_robots", &self.verified_robots, true),
        ];
        let nginx = server == Server::Nginx;
        for (option, path, expanded) in paths {
            check_text(option, &path.to_string_lossy(), nginx && expanded)?;
        }
        if let Some(auth) = &self.basic_auth {
            check_text("basic_auth.path", &auth.path, false)?;
            check_text("basic_auth.realm", &auth.realm, nginx)?;
            check_text(
                "basic_auth.user_file",
                &auth.user_file.to_string_lossy(),
                nginx,
            )?;
            check_text("basic_auth.haproxy_userlist", &auth.haproxy_userlist, false)?;
            if !auth.path.starts_with('/') {
                return Err(Error::Snippet {
                    option: "basic_auth.path",
                    value: auth.path.clone(),
                    reason: "a URL path starts with /".to_owned(),
                });
            }
        }
        Ok(())
    }
}

/// Refuses control characters (a newline, carriage return, NUL, any other
/// C0 or C1 control, DEL), and `$` when nginx would expand it.
fn check_text(option: &'static str, value: &str, no_dollar: bool) -> Result<(), Error> {
    let refuse = |reason: String| Error::Snippet {
        option,
        value: value.to_owned(),
        reason,
    };
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(refuse(format!(
            "holds the control character U+{:04X}{}; configuration values cannot",
            u32::from(c),
            match c {
                '\n' | '\r' => ", which would start a new configuration line",
                _ => "",
            }
        )));
    }
    if no_dollar && value.contains('$') {
        return Err(refuse(
            "holds `$`, which nginx would read as the start of a variable".to_owned(),
        ));
    }
    Ok(())
}

/// Configuration for `server` that uses the exports: spoofed crawlers get
/// 403, verified crawlers get [`SnippetOptions::verified_robots`] as
/// `/robots.txt` and skip basic authentication, everyone else gets the
/// normal robots.txt and the authentication.
///
/// The text is the parts of [`snippet_parts`], one after the other; nginx
/// has two (`http` and `server` context), the others one.
///
/// # Errors
/// [`Error::Snippet`]: an option [`SnippetOptions::check`] refuses for
/// `server`.
pub fn snippet(server: Server, opts: &SnippetOptions) -> Result<String, Error> {
    let parts = snippet_parts(server, opts)?;
    let texts: Vec<_> = parts.into_iter().map(|p| p.text).collect();
    Ok(texts.join("\n"))
}

/// The parts of [`snippet`], each with the context it goes in.
///
/// # Errors
/// [`Error::Snippet`]: an option [`SnippetOptions::check`] refuses for
/// `server`.
pub fn snippet_parts(server: Server, opts: &SnippetOptions) -> Result<Vec<SnippetPart>, Error> {
    opts.check(server)?;
    Ok(match server {
        Server::Apache => vec![SnippetPart {
            context: SnippetContext::ApacheServer,
            text: apache(opts),
        }],
        Server::Nginx => vec![
            SnippetPart {
                context: SnippetContext::NginxHttp,
                text: nginx_http(opts),
            },
            SnippetPart {
                context: SnippetContext::NginxServer,
                text: nginx_server(opts),
            },
        ],
        Server::Haproxy => {
            vec![SnippetPart {
                context: SnippetContext::HaproxyFrontend,
                text: haproxy(opts),
            }]
        }
    })
}

/// A double-quoted Apache or nginx argument.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// A path inside a mod_rewrite string, where `$` and `%` start references.
fn rewrite_text(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if matches!(c, '$' | '%') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn apache(opts: &SnippetOptions) -> String {
    let mut out = String::from(
        "# botwarden: crawler verification for Apache httpd 2.4.\n\
         # Goes in the server configuration or in each <VirtualHost> (rewrite rules are\n\
         # not inherited). Needs mod_rewrite and mod_authz_core; the authentication\n\
         # needs mod_auth_basic, mod_authn_core, mod_authn_file and mod_authz_user.\n",
    );
    let (spoofed, verified) = match opts.apache_lookup {
        ApacheLookup::AcapTree => {
            let dir = rewrite_text(&opts.acap_dir);
            let _ = writeln!(
                out,
                "# Lookups test files of the ACAP tree {}, which botwarden replaces\n\
                 # atomically: a new list applies from the next request, without a reload.",
                display(&opts.acap_dir)
            );
            (
                format!(
                    "RewriteCond {} -f",
                    quoted(&format!("{dir}/suspect-bots/%{{REMOTE_ADDR}}"))
                ),
                format!(
                    "RewriteCond {} -f",
                    quoted(&format!("{dir}/all-ok-bots/%{{REMOTE_ADDR}}"))
                ),
            )
        }
        ApacheLookup::RewriteMap => {
            let _ = writeln!(
                out,
                "# Lookups use the RewriteMap {}, which botwarden replaces\n\
                 # atomically; mod_rewrite rereads it when its modification time changes,\n\
                 # so a new list applies from the next request, without a reload.",
                display(&opts.apache_map)
            );
            let _ = writeln!(
                out,
                "RewriteMap botwarden {}",
                quoted(&format!("txt:{}", display(&opts.apache_map)))
            );
            (
                "RewriteCond \"${botwarden:%{REMOTE_ADDR}|}\" \"=spoofed\"".to_owned(),
                "RewriteCond \"${botwarden:%{REMOTE_ADDR}|}\" \"!^(spoofed|other)?$\"".to_owned(),
            )
        }
    };
    let _ = write!(
        out,
        "RewriteEngine On\n\
         \n\
         # Spoofed crawlers (they claimed a crawler and failed its verification): 403.\n\
         {spoofed}\n\
         RewriteRule \"^\" \"-\" [F]\n\
         \n\
         # Verified crawlers: noted in BOTWARDEN_VERIFIED for the rules below.\n\
         {verified}\n\
         RewriteRule \"^\" \"-\" [E=BOTWARDEN_VERIFIED:1]\n\
         \n\
         # Verified crawlers get their own robots.txt.\n\
         RewriteCond \"%{{ENV:BOTWARDEN_VERIFIED}}\" \"=1\"\n\
         RewriteRule \"^/robots\\.txt$\" {} [L]\n",
        quoted(&rewrite_text(&opts.verified_robots))
    );
    if let Some(auth) = &opts.basic_auth {
        let _ = write!(
            out,
            "\n\
             # Basic authentication, skipped for verified crawlers.\n\
             <Location {}>\n\
             \x20   AuthType Basic\n\
             \x20   AuthName {}\n\
             \x20   AuthBasicProvider file\n\
             \x20   AuthUserFile {}\n\
             \x20   <RequireAny>\n\
             \x20       Require env BOTWARDEN_VERIFIED\n\
             \x20       Require valid-user\n\
             \x20   </RequireAny>\n\
             </Location>\n",
            quoted(&auth.path),
            quoted(&auth.realm),
            quoted(&display(&auth.user_file)),
        );
    }
    out.push_str(
        "\n\
         # robots.txt (either copy) stays public: crawlers must be able to read it.\n\
         <Location \"/robots.txt\">\n\
         \x20   Require all granted\n\
         </Location>\n",
    );
    out
}

fn nginx_http(opts: &SnippetOptions) -> String {
    let mut out = format!(
        "# botwarden: crawler verification for nginx, part 1 of 2: in the http {{ }} block.\n\
         # geo reads the list when nginx loads its configuration: reload nginx\n\
         # (nginx -s reload) after botwarden rewrites {}.\n\
         geo $botwarden {{\n\
         \x20   default \"\";\n\
         \x20   include {};\n\
         }}\n\
         map $botwarden $botwarden_verified {{\n\
         \x20   default 1;\n\
         \x20   \"\" 0;\n\
         \x20   spoofed 0;\n\
         \x20   other 0;\n\
         }}\n",
        display(&opts.nginx_geo),
        quoted(&display(&opts.nginx_geo)),
    );
    if let Some(auth) = &opts.basic_auth {
        let _ = write!(
            out,
            "map $botwarden_verified $botwarden_auth {{\n\
             \x20   1 off;\n\
             \x20   default {};\n\
             }}\n",
            quoted(&auth.realm)
        );
    }
    out
}

fn nginx_server(opts: &SnippetOptions) -> String {
    let mut out = format!(
        "# botwarden: crawler verification for nginx, part 2 of 2: in each server {{ }} block.\n\
         # Spoofed crawlers (they claimed a crawler and failed its verification): 403.\n\
         if ($botwarden = spoofed) {{\n\
         \x20   return 403;\n\
         }}\n\
         \n\
         # Verified crawlers get their own robots.txt; robots.txt stays public.\n\
         location = /robots.txt {{\n\
         \x20   auth_basic off;\n\
         \x20   if ($botwarden_verified) {{\n\
         \x20       rewrite ^ /.botwarden-robots-verified.txt last;\n\
         \x20   }}\n\
         }}\n\
         location = /.botwarden-robots-verified.txt {{\n\
         \x20   internal;\n\
         \x20   auth_basic off;\n\
         \x20   default_type text/plain;\n\
         \x20   alias {};\n\
         }}\n",
        quoted(&display(&opts.verified_robots))
    );
    if let Some(auth) = &opts.basic_auth {
        let directives = format!(
            "auth_basic $botwarden_auth;\nauth_basic_user_file {};\n",
            quoted(&display(&auth.user_file))
        );
        out.push_str("\n# Basic authentication, skipped for verified crawlers.\n");
        if auth.path == "/" {
            out.push_str(&directives);
        } else {
            let _ = write!(
                out,
                "# Merge into your own location for {} if you have one.\nlocation ^~ {} {{\n",
                auth.path,
                quoted(&auth.path)
            );
            for line in directives.lines() {
                let _ = writeln!(out, "    {line}");
            }
            out.push_str("}\n");
        }
    }
    out
}

/// A HAProxy word: bare when plain, else single-quoted (no expansion).
fn haproxy_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+~@:".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        return s.to_owned();
    }
    if !s.contains('\'') {
        return format!("'{s}'");
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn haproxy(opts: &SnippetOptions) -> String {
    let map = haproxy_word(&display(&opts.haproxy_map));
    let mut out = format!(
        "# botwarden: crawler verification for HAProxy 2.2 or later: in a frontend or\n\
         # listen section (mode http). HAProxy reads the map and the robots.txt file\n\
         # when it starts: reload HAProxy after botwarden rewrites {}\n\
         # (or update the running map with the runtime API's \"set map\").\n\
         acl botwarden_listed src,map_ip({map}) -m found\n\
         acl botwarden_unverified src,map_ip({map}) -m str spoofed other\n\
         acl botwarden_spoofed src,map_ip({map}) -m str spoofed\n\
         \n\
         # Spoofed crawlers (they claimed a crawler and failed its verification): 403.\n\
         http-request deny deny_status 403 if botwarden_spoofed\n\
         \n\
         # Verified crawlers get their own robots.txt.\n\
         http-request return status 200 content-type \"text/plain; charset=utf-8\" file {} if {{ path /robots.txt }} botwarden_listed !botwarden_unverified\n",
        display(&opts.haproxy_map),
        haproxy_word(&display(&opts.verified_robots)),
    );
    if let Some(auth) = &opts.basic_auth {
        let cond = format!(
            "{{ path_beg {} }} !{{ path /robots.txt }} !{{ http_auth({}) }}",
            haproxy_word(&auth.path),
            haproxy_word(&auth.haproxy_userlist)
        );
        let realm = haproxy_word(&auth.realm);
        let _ = write!(
            out,
            "\n\
             # Basic authentication (userlist {}), skipped for verified crawlers.\n\
             http-request auth realm {realm} if {cond} !botwarden_listed\n\
             http-request auth realm {realm} if {cond} botwarden_unverified\n",
            auth.haproxy_userlist
        );
    }
    out
}

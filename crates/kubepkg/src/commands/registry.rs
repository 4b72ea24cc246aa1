//! `kubepkg registry login HOST` / `logout HOST`: credentials in Helm's registry config (the
//! file `helm registry login` writes, so either tool's login serves both); a login is checked
//! against the registry first, as helm does.

use std::io::Read;

use anyhow::{Context, Result, bail};

use crate::cli::{RegistryCommand, RegistryLoginArgs};
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(cmd: RegistryCommand, settings: &Settings) -> Result<Exit> {
    match cmd {
        RegistryCommand::Login(args) => login(*args, settings).await,
        RegistryCommand::Logout(args) => {
            let host = host_of(&args.host);
            kubepkg_oci::credentials::logout(&settings.paths.registry_config, &host)?;
            eprintln!("Removing login credentials for {host}");
            Ok(Exit::Succeeded)
        }
    }
}

async fn login(args: RegistryLoginArgs, settings: &Settings) -> Result<Exit> {
    let host = host_of(&args.host);
    let password = match (args.password, args.password_stdin) {
        (Some(p), _) => p,
        (None, true) => {
            let mut p = String::new();
            std::io::stdin()
                .read_to_string(&mut p)
                .context("reading the password from standard input")?;
            p.trim_end_matches(['\n', '\r']).to_string()
        }
        (None, false) => bail!("give the password with -p/--password or --password-stdin"),
    };
    let options = kubepkg_source::SourceOptions {
        username: Some(args.username.clone()),
        password: Some(password.clone()),
        ca_file: args.ca_file,
        cert_file: args.cert_file,
        key_file: args.key_file,
        insecure_skip_tls_verify: args.insecure,
        plain_http: args.plain_http,
        ..Default::default()
    };
    let client = kubepkg_source::oci::client(&options, &settings.paths)?;
    let probe = kubepkg_oci::Reference {
        registry: host.clone(),
        repository: "v2".into(),
        tag: None,
        digest: None,
    };
    client.ping(&probe).await.map_err(|e| match e {
        kubepkg_oci::Error::AuthDenied { host, .. }
        | kubepkg_oci::Error::AuthRequired { host, .. } => {
            anyhow::anyhow!("login to {host} failed: the registry refused the username or password")
        }
        e => e.into(),
    })?;
    let credential = kubepkg_oci::Credential {
        username: args.username,
        password,
    };
    kubepkg_oci::credentials::login(&settings.paths.registry_config, &host, &credential)?;
    println!("Login Succeeded");
    Ok(Exit::Succeeded)
}

/// `HOST[:PORT]` of what the user typed (`oci://` and a path are dropped, as helm does).
fn host_of(input: &str) -> String {
    let s = input.trim_start_matches(kubepkg_oci::reference::SCHEME);
    let s = s
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    s.split('/').next().unwrap_or(s).to_string()
}

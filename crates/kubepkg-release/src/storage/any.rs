//! The storage driver chosen at run time, as Helm chooses it from `$HELM_DRIVER`: one concrete
//! type over Helm's drivers, so a [`Store`](super::Store) or
//! [`Releases`](crate::action::Releases) over "whichever driver the user asked for" is one type
//! and not one generic instantiation per driver.

use std::collections::BTreeMap;

use super::{ConfigMapDriver, Driver, MemoryDriver, SecretDriver, StoredObject};
use crate::error::Error;

/// Which of Helm's storage drivers to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DriverKind {
    /// Secrets (Helm's default).
    #[default]
    Secret,
    /// ConfigMaps.
    ConfigMap,
    /// In memory, empty at start (Helm's `memory` driver, for tests and throwaway runs).
    Memory,
}

impl DriverKind {
    /// The driver `$HELM_DRIVER` names (`secret`/`secrets`, empty: Secret; `configmap`/
    /// `configmaps`; `memory`), case-insensitively. Helm's `sql` driver is not supported.
    pub fn from_helm_driver(name: &str) -> Result<DriverKind, Error> {
        match name.to_lowercase().as_str() {
            "" | "secret" | "secrets" => Ok(DriverKind::Secret),
            "configmap" | "configmaps" => Ok(DriverKind::ConfigMap),
            "memory" => Ok(DriverKind::Memory),
            _ => Err(Error::UnsupportedDriver {
                name: name.to_string(),
            }),
        }
    }

    /// The driver bound to `namespace` (`None`: all namespaces, for listing).
    pub fn open(self, client: kube::Client, namespace: Option<&str>) -> AnyDriver {
        match self {
            DriverKind::Secret => AnyDriver::Secret(SecretDriver::new(client, namespace)),
            DriverKind::ConfigMap => AnyDriver::ConfigMap(ConfigMapDriver::new(client, namespace)),
            DriverKind::Memory => AnyDriver::Memory(MemoryDriver::new(namespace.unwrap_or(""))),
        }
    }
}

/// One of Helm's drivers, chosen at run time ([`DriverKind::open`]).
#[derive(Clone)]
pub enum AnyDriver {
    Secret(SecretDriver),
    ConfigMap(ConfigMapDriver),
    Memory(MemoryDriver),
}

impl Driver for AnyDriver {
    fn name(&self) -> &'static str {
        match self {
            AnyDriver::Secret(d) => d.name(),
            AnyDriver::ConfigMap(d) => d.name(),
            AnyDriver::Memory(d) => d.name(),
        }
    }

    async fn query(&self, selector: &BTreeMap<String, String>) -> Result<Vec<StoredObject>, Error> {
        match self {
            AnyDriver::Secret(d) => d.query(selector).await,
            AnyDriver::ConfigMap(d) => d.query(selector).await,
            AnyDriver::Memory(d) => d.query(selector).await,
        }
    }

    async fn get(&self, key: &str) -> Result<Option<StoredObject>, Error> {
        match self {
            AnyDriver::Secret(d) => d.get(key).await,
            AnyDriver::ConfigMap(d) => d.get(key).await,
            AnyDriver::Memory(d) => d.get(key).await,
        }
    }

    async fn create(&self, object: StoredObject) -> Result<(), Error> {
        match self {
            AnyDriver::Secret(d) => d.create(object).await,
            AnyDriver::ConfigMap(d) => d.create(object).await,
            AnyDriver::Memory(d) => d.create(object).await,
        }
    }

    async fn update(&self, object: StoredObject) -> Result<(), Error> {
        match self {
            AnyDriver::Secret(d) => d.update(object).await,
            AnyDriver::ConfigMap(d) => d.update(object).await,
            AnyDriver::Memory(d) => d.update(object).await,
        }
    }

    async fn delete(&self, key: &str) -> Result<(), Error> {
        match self {
            AnyDriver::Secret(d) => d.delete(key).await,
            AnyDriver::ConfigMap(d) => d.delete(key).await,
            AnyDriver::Memory(d) => d.delete(key).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_driver_names() {
        for (name, kind) in [
            ("", DriverKind::Secret),
            ("secret", DriverKind::Secret),
            ("Secrets", DriverKind::Secret),
            ("configmap", DriverKind::ConfigMap),
            ("ConfigMaps", DriverKind::ConfigMap),
            ("memory", DriverKind::Memory),
        ] {
            assert_eq!(DriverKind::from_helm_driver(name).unwrap(), kind, "{name}");
        }
        let err = DriverKind::from_helm_driver("sql").unwrap_err().to_string();
        assert_eq!(
            err,
            r#"HELM_DRIVER="sql" is not supported by kubepkg (use secret, configmap or memory)"#
        );
    }

    #[tokio::test]
    async fn the_memory_variant_stores_and_reads_back() {
        let release = crate::Release {
            name: "a".into(),
            namespace: "ns".into(),
            version: 1,
            ..Default::default()
        };
        let store = super::super::Store::new(AnyDriver::Memory(MemoryDriver::new("ns")));
        store.create(&release).await.unwrap();
        assert_eq!(store.last("a").await.unwrap().unwrap().version, 1);
        assert_eq!(store.driver.name(), "Memory");
    }
}

//! Who is asking, when the dashboard is served to many users (`kubepkg controller
//! --dashboard-bind-address`), as the Kubernetes Dashboard does it: every request carries a
//! Kubernetes bearer token (`Authorization: Bearer …`, or the cookie the login form sets),
//! checked with a TokenReview; each namespace is shown only when a SubjectAccessReview says the
//! token's user may `get` `packages.kubepkg.dev` in it. The reads themselves are made with the
//! dashboard's own identity and filtered by those answers; a token is never logged.

use std::collections::BTreeMap;

use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};

use crate::error::DashboardError;

/// The cookie the login form sets.
pub(crate) const COOKIE: &str = "kubepkg-token";

/// An authenticated user, as the API server's TokenReview names them.
#[derive(Debug, Clone)]
pub struct User {
    pub name: String,
    pub uid: Option<String>,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

/// The token a request carries: its `Authorization: Bearer` header, else the login cookie.
pub(crate) fn token_of(headers: &hyper::HeaderMap) -> Option<String> {
    let bearer = headers
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    if let Some(t) = bearer {
        return Some(t.to_string());
    }
    headers
        .get_all(hyper::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix(&format!("{COOKIE}=")))
        .map(str::to_string)
        .find(|t| !t.is_empty())
}

/// The user `token` authenticates as; `None` when the API server says it does not.
pub(crate) async fn authenticate(
    client: &kube::Client,
    token: &str,
) -> Result<Option<User>, DashboardError> {
    let review = TokenReview {
        spec: TokenReviewSpec {
            token: token.to_string(),
            audiences: None,
        },
        ..Default::default()
    };
    let answer = create_review(client, "TokenReview", &review).await?;
    let Some(status) = answer.status else {
        return Ok(None);
    };
    if status.authenticated != Some(true) {
        return Ok(None);
    }
    let user = status.user.unwrap_or_default();
    Ok(Some(User {
        name: user.username.unwrap_or_default(),
        uid: user.uid,
        groups: user.groups.unwrap_or_default(),
        extra: user.extra.unwrap_or_default(),
    }))
}

/// Whether `user` may `get` Packages in `namespace`.
pub(crate) async fn may_read(
    client: &kube::Client,
    user: &User,
    namespace: &str,
) -> Result<bool, DashboardError> {
    may_get(client, user, namespace, "kubepkg.dev", "packages").await
}

/// Whether `user` may `get` `resource` of API `group` in `namespace` (SubjectAccessReview).
pub(crate) async fn may_get(
    client: &kube::Client,
    user: &User,
    namespace: &str,
    group: &str,
    resource: &str,
) -> Result<bool, DashboardError> {
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(user.name.clone()),
            uid: user.uid.clone(),
            groups: Some(user.groups.clone()),
            extra: Some(user.extra.clone()),
            resource_attributes: Some(ResourceAttributes {
                namespace: Some(namespace.to_string()),
                verb: Some("get".into()),
                group: Some(group.into()),
                resource: Some(resource.into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = create_review(client, "SubjectAccessReview", &review).await?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

/// Creates `review`, a cluster-wide review object of kind `what`, and returns the API server's
/// answer (the review with its status).
async fn create_review<K>(
    client: &kube::Client,
    what: &'static str,
    review: &K,
) -> Result<K, DashboardError>
where
    K: kube::Resource
        + Clone
        + std::fmt::Debug
        + k8s_openapi::serde::Serialize
        + k8s_openapi::serde::de::DeserializeOwned,
    K::DynamicType: Default,
{
    Api::<K>::all(client.clone())
        .create(&PostParams::default(), review)
        .await
        .map_err(|e| DashboardError::Review {
            what,
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_the_bearer_header_else_the_cookie() {
        let mut h = hyper::HeaderMap::new();
        assert_eq!(token_of(&h), None);
        h.insert(
            hyper::header::COOKIE,
            "a=b; kubepkg-token=from-cookie".parse().unwrap(),
        );
        assert_eq!(token_of(&h).as_deref(), Some("from-cookie"));
        h.insert(
            hyper::header::AUTHORIZATION,
            "Bearer from-header".parse().unwrap(),
        );
        assert_eq!(token_of(&h).as_deref(), Some("from-header"));
    }
}

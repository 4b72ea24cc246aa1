//! The backend scenarios ([`crate::backends::scenarios`]) run with the native backend
//! (`--backend helm`, the default): kubepkg renders and applies each component's chart from the
//! package itself and keeps it as a Helm release, whose latest record is the component's
//! object. The scenarios about a backend's own controllers are left out
//! ([`backend_scenarios!`](crate::backend_scenarios) says which and why).

use crate::backends::Kind;

crate::backend_scenarios!(native Kind::Helm);

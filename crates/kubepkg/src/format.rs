//! The values of `-o/--output` ([`Format`]) and the set each family of verbs takes: clap
//! parses them once (`crate::cli`), and commands and printers match on the typed value.

/// The values of `-o/--output`. Which a verb takes depends on its family ([`Format::HELM`],
/// [`Format::QUERY`], …): clap refuses the others, naming those it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    // Tables (or text: the two are the same where both are taken).
    Table,
    // Text (or tables).
    Text,
    Json,
    Yaml,
}

impl Format {
    /// Helm's `-o` (`install`, `upgrade`, `get`, `repo list`, `search repo`).
    pub const HELM: &[Format] = &[Format::Table, Format::Json, Format::Yaml];
    /// The query verbs, where a package's `text` and a release's `table` meet (`list`,
    /// `status`, `history`, `test`, `version`, `package status|history|list`).
    pub const QUERY: &[Format] = &[Format::Table, Format::Text, Format::Json, Format::Yaml];
    /// The verbs that report progress (`apply`, `rollback`, `uninstall`, `package
    /// rollback|uninstall`): text (or table) lines, or a JSON line per event.
    pub const EVENTS: &[Format] = &[Format::Table, Format::Text, Format::Json];
    /// `plan` and `lint`.
    pub const TEXT_JSON: &[Format] = &[Format::Text, Format::Json];
    /// `render`: YAML documents or a JSON `List`.
    pub const YAML_JSON: &[Format] = &[Format::Yaml, Format::Json];

    /// How `kubepkg_release::output` prints this format (text is Helm's table).
    pub fn helm(self) -> kubepkg_release::output::Format {
        use kubepkg_release::output::Format as Helm;
        match self {
            Format::Table | Format::Text => Helm::Table,
            Format::Json => Helm::Json,
            Format::Yaml => Helm::Yaml,
        }
    }
}

//! git's fsck message ids, their default severities and how git prints them.

/// git's fsck message ids (`FOREACH_FSCK_MSG_ID` in git 2.47's `fsck.h`), in git's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MsgId {
    /// `nulInHeader` (default: fatal).
    NulInHeader,
    /// `unterminatedHeader` (default: fatal).
    UnterminatedHeader,
    /// `badDate` (default: error).
    BadDate,
    /// `badDateOverflow` (default: error).
    BadDateOverflow,
    /// `badEmail` (default: error).
    BadEmail,
    /// `badName` (default: error).
    BadName,
    /// `badObjectSha1` (default: error).
    BadObjectSha1,
    /// `badParentSha1` (default: error).
    BadParentSha1,
    /// `badRefFiletype` (default: error).
    BadRefFiletype,
    /// `badRefName` (default: error).
    BadRefName,
    /// `badTimezone` (default: error).
    BadTimezone,
    /// `badTree` (default: error).
    BadTree,
    /// `badTreeSha1` (default: error).
    BadTreeSha1,
    /// `badType` (default: error).
    BadType,
    /// `duplicateEntries` (default: error).
    DuplicateEntries,
    /// `missingAuthor` (default: error).
    MissingAuthor,
    /// `missingCommitter` (default: error).
    MissingCommitter,
    /// `missingEmail` (default: error).
    MissingEmail,
    /// `missingNameBeforeEmail` (default: error).
    MissingNameBeforeEmail,
    /// `missingObject` (default: error).
    MissingObject,
    /// `missingSpaceBeforeDate` (default: error).
    MissingSpaceBeforeDate,
    /// `missingSpaceBeforeEmail` (default: error).
    MissingSpaceBeforeEmail,
    /// `missingTag` (default: error).
    MissingTag,
    /// `missingTagEntry` (default: error).
    MissingTagEntry,
    /// `missingTree` (default: error).
    MissingTree,
    /// `missingType` (default: error).
    MissingType,
    /// `missingTypeEntry` (default: error).
    MissingTypeEntry,
    /// `multipleAuthors` (default: error).
    MultipleAuthors,
    /// `treeNotSorted` (default: error).
    TreeNotSorted,
    /// `unknownType` (default: error).
    UnknownType,
    /// `zeroPaddedDate` (default: error).
    ZeroPaddedDate,
    /// `gitmodulesMissing` (default: error).
    GitmodulesMissing,
    /// `gitmodulesBlob` (default: error).
    GitmodulesBlob,
    /// `gitmodulesLarge` (default: error).
    GitmodulesLarge,
    /// `gitmodulesName` (default: error).
    GitmodulesName,
    /// `gitmodulesSymlink` (default: error).
    GitmodulesSymlink,
    /// `gitmodulesUrl` (default: error).
    GitmodulesUrl,
    /// `gitmodulesPath` (default: error).
    GitmodulesPath,
    /// `gitmodulesUpdate` (default: error).
    GitmodulesUpdate,
    /// `gitattributesMissing` (default: error).
    GitattributesMissing,
    /// `gitattributesLarge` (default: error).
    GitattributesLarge,
    /// `gitattributesLineLength` (default: error).
    GitattributesLineLength,
    /// `gitattributesBlob` (default: error).
    GitattributesBlob,
    /// `emptyName` (default: warn).
    EmptyName,
    /// `fullPathname` (default: warn).
    FullPathname,
    /// `hasDot` (default: warn).
    HasDot,
    /// `hasDotdot` (default: warn).
    HasDotdot,
    /// `hasDotgit` (default: warn).
    HasDotgit,
    /// `nullSha1` (default: warn).
    NullSha1,
    /// `zeroPaddedFilemode` (default: warn).
    ZeroPaddedFilemode,
    /// `nulInCommit` (default: warn).
    NulInCommit,
    /// `largePathname` (default: warn).
    LargePathname,
    /// `badFilemode` (default: info).
    BadFilemode,
    /// `gitmodulesParse` (default: info).
    GitmodulesParse,
    /// `gitignoreSymlink` (default: info).
    GitignoreSymlink,
    /// `gitattributesSymlink` (default: info).
    GitattributesSymlink,
    /// `mailmapSymlink` (default: info).
    MailmapSymlink,
    /// `badTagName` (default: info).
    BadTagName,
    /// `missingTaggerEntry` (default: info).
    MissingTaggerEntry,
    /// `extraHeaderEntry` (default: ignore).
    ExtraHeaderEntry,
}

/// Every id with its camelCase name and default severity, in git's order.
pub(super) const TABLE: [(MsgId, &str, Severity); 60] = [
    (MsgId::NulInHeader, "nulInHeader", Severity::Fatal),
    (
        MsgId::UnterminatedHeader,
        "unterminatedHeader",
        Severity::Fatal,
    ),
    (MsgId::BadDate, "badDate", Severity::Error),
    (MsgId::BadDateOverflow, "badDateOverflow", Severity::Error),
    (MsgId::BadEmail, "badEmail", Severity::Error),
    (MsgId::BadName, "badName", Severity::Error),
    (MsgId::BadObjectSha1, "badObjectSha1", Severity::Error),
    (MsgId::BadParentSha1, "badParentSha1", Severity::Error),
    (MsgId::BadRefFiletype, "badRefFiletype", Severity::Error),
    (MsgId::BadRefName, "badRefName", Severity::Error),
    (MsgId::BadTimezone, "badTimezone", Severity::Error),
    (MsgId::BadTree, "badTree", Severity::Error),
    (MsgId::BadTreeSha1, "badTreeSha1", Severity::Error),
    (MsgId::BadType, "badType", Severity::Error),
    (MsgId::DuplicateEntries, "duplicateEntries", Severity::Error),
    (MsgId::MissingAuthor, "missingAuthor", Severity::Error),
    (MsgId::MissingCommitter, "missingCommitter", Severity::Error),
    (MsgId::MissingEmail, "missingEmail", Severity::Error),
    (
        MsgId::MissingNameBeforeEmail,
        "missingNameBeforeEmail",
        Severity::Error,
    ),
    (MsgId::MissingObject, "missingObject", Severity::Error),
    (
        MsgId::MissingSpaceBeforeDate,
        "missingSpaceBeforeDate",
        Severity::Error,
    ),
    (
        MsgId::MissingSpaceBeforeEmail,
        "missingSpaceBeforeEmail",
        Severity::Error,
    ),
    (MsgId::MissingTag, "missingTag", Severity::Error),
    (MsgId::MissingTagEntry, "missingTagEntry", Severity::Error),
    (MsgId::MissingTree, "missingTree", Severity::Error),
    (MsgId::MissingType, "missingType", Severity::Error),
    (MsgId::MissingTypeEntry, "missingTypeEntry", Severity::Error),
    (MsgId::MultipleAuthors, "multipleAuthors", Severity::Error),
    (MsgId::TreeNotSorted, "treeNotSorted", Severity::Error),
    (MsgId::UnknownType, "unknownType", Severity::Error),
    (MsgId::ZeroPaddedDate, "zeroPaddedDate", Severity::Error),
    (
        MsgId::GitmodulesMissing,
        "gitmodulesMissing",
        Severity::Error,
    ),
    (MsgId::GitmodulesBlob, "gitmodulesBlob", Severity::Error),
    (MsgId::GitmodulesLarge, "gitmodulesLarge", Severity::Error),
    (MsgId::GitmodulesName, "gitmodulesName", Severity::Error),
    (
        MsgId::GitmodulesSymlink,
        "gitmodulesSymlink",
        Severity::Error,
    ),
    (MsgId::GitmodulesUrl, "gitmodulesUrl", Severity::Error),
    (MsgId::GitmodulesPath, "gitmodulesPath", Severity::Error),
    (MsgId::GitmodulesUpdate, "gitmodulesUpdate", Severity::Error),
    (
        MsgId::GitattributesMissing,
        "gitattributesMissing",
        Severity::Error,
    ),
    (
        MsgId::GitattributesLarge,
        "gitattributesLarge",
        Severity::Error,
    ),
    (
        MsgId::GitattributesLineLength,
        "gitattributesLineLength",
        Severity::Error,
    ),
    (
        MsgId::GitattributesBlob,
        "gitattributesBlob",
        Severity::Error,
    ),
    (MsgId::EmptyName, "emptyName", Severity::Warn),
    (MsgId::FullPathname, "fullPathname", Severity::Warn),
    (MsgId::HasDot, "hasDot", Severity::Warn),
    (MsgId::HasDotdot, "hasDotdot", Severity::Warn),
    (MsgId::HasDotgit, "hasDotgit", Severity::Warn),
    (MsgId::NullSha1, "nullSha1", Severity::Warn),
    (
        MsgId::ZeroPaddedFilemode,
        "zeroPaddedFilemode",
        Severity::Warn,
    ),
    (MsgId::NulInCommit, "nulInCommit", Severity::Warn),
    (MsgId::LargePathname, "largePathname", Severity::Warn),
    (MsgId::BadFilemode, "badFilemode", Severity::Info),
    (MsgId::GitmodulesParse, "gitmodulesParse", Severity::Info),
    (MsgId::GitignoreSymlink, "gitignoreSymlink", Severity::Info),
    (
        MsgId::GitattributesSymlink,
        "gitattributesSymlink",
        Severity::Info,
    ),
    (MsgId::MailmapSymlink, "mailmapSymlink", Severity::Info),
    (MsgId::BadTagName, "badTagName", Severity::Info),
    (
        MsgId::MissingTaggerEntry,
        "missingTaggerEntry",
        Severity::Info,
    ),
    (
        MsgId::ExtraHeaderEntry,
        "extraHeaderEntry",
        Severity::Ignore,
    ),
];

impl MsgId {
    /// Every id, in git's order.
    pub fn all() -> impl Iterator<Item = MsgId> {
        TABLE.iter().map(|t| t.0)
    }

    fn entry(self) -> &'static (MsgId, &'static str, Severity) {
        // TABLE is in declaration order, so the discriminant is the index.
        &TABLE[self as usize]
    }

    /// git's camelCase spelling, as printed (`missingTaggerEntry`).
    pub fn camel(self) -> &'static str {
        self.entry().1
    }

    /// The severity git gives the id without `--strict` or configuration.
    pub fn default(self) -> Severity {
        self.entry().2
    }

    /// The id a configuration key names (`fsck.<id>`), in any case, as git's `parse_msg_id`
    /// (which compares with the lowercased camelCase spelling).
    pub fn from_config_key(name: &str) -> Option<MsgId> {
        TABLE
            .iter()
            .find(|t| t.1.eq_ignore_ascii_case(name))
            .map(|t| t.0)
    }
}

/// How git treats a message (its `enum fsck_msg_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// `nulInHeader` and `unterminatedHeader`: printed as errors; configuration may not demote
    /// them (`Cannot demote ...`).
    Fatal,
    /// `FSCK_ERROR`: printed as `error in ...`; the object fails.
    Error,
    /// `FSCK_WARN`: printed as `warning in ...`.
    Warn,
    /// `FSCK_INFO`: printed as a warning.
    Info,
    /// `FSCK_IGNORE`: not printed.
    Ignore,
}

impl Severity {
    /// What git prints the message as: `Error` (for `Fatal` and `Error`), `Warn` (for `Warn`
    /// and `Info`), or `None` for `Ignore`.
    pub fn printed(self) -> Option<Severity> {
        match self {
            Severity::Fatal | Severity::Error => Some(Severity::Error),
            Severity::Warn | Severity::Info => Some(Severity::Warn),
            Severity::Ignore => None,
        }
    }
}

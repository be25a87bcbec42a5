// Messages a person reads (configuration errors, sign-in, doctor), in the member's language like the
// API's own messages: WORKSPACE_LOCALE when it is en or fr, else the system locale (LC_ALL,
// LC_MESSAGES, LANG starting with fr), else English. Every such message lives here, once per language,
// so a missing translation is a type error rather than an English line in a French session.

export type Locale = 'en' | 'fr';

/** The member's locale from the environment. An invalid WORKSPACE_LOCALE falls through to the system's. */
export function detectLocale(env: NodeJS.ProcessEnv = process.env): Locale {
  const chosen = env.WORKSPACE_LOCALE?.trim().toLowerCase();
  if (chosen === 'en' || chosen === 'fr') return chosen;
  // POSIX precedence: LC_ALL overrides LC_MESSAGES, which overrides LANG.
  const system = [env.LC_ALL, env.LC_MESSAGES, env.LANG].map((v) => v?.trim()).find((v) => v && v !== '');
  return system && /^fr([_.@-]|$)/i.test(system) ? 'fr' : 'en';
}

type Params = Record<string, string | number>;
type Text<P extends Params> = { en: (p: P) => string; fr: (p: P) => string };
const text = <P extends Params = Record<never, never>>(t: Text<P>): Text<P> => t;

const MESSAGES = {
  // The Node.js floor (src/node-floor.ts): one line, printed before any command runs.
  'node.too_old': text<{ version: string; floor: string; line: string }>({
    en: (p) =>
      `workspace-consulting-mcp needs Node.js ${p.floor} or later, and this is Node.js ${p.version}: run ${p.line} (a client that starts it takes that node's full path as its command).`,
    fr: (p) =>
      `workspace-consulting-mcp demande Node.js ${p.floor} ou plus récent, et celui-ci est Node.js ${p.version} : lancez ${p.line} (un client qui le démarre prend le chemin complet de ce node comme commande).`,
  }),

  // Configuration (src/config.ts). The English text is what the configuration tests expect. No
  // message quotes a setting's value: it may be a secret pasted into the wrong place.
  'config.invalid': text<{ env: string; flag: string; fix: string }>({
    en: (p) => `Invalid ${p.env} (${p.flag}): ${p.fix}`,
    fr: (p) => `${p.env} (${p.flag}) invalide : ${p.fix}`,
  }),
  'config.unexpected_argument': text<{ position: number }>({
    en: (p) => `Unexpected argument at position ${p.position}: options start with --; run with --help for the options.`,
    fr: (p) => `Argument inattendu en position ${p.position} : les options commencent par -- ; lancez avec --help pour voir les options.`,
  }),
  'config.unknown_option_unnamed': text<{ position: number }>({
    en: (p) => `Unknown option at position ${p.position}: run with --help for the options.`,
    fr: (p) => `Option inconnue en position ${p.position} : lancez avec --help pour voir les options.`,
  }),
  'config.unknown_option': text<{ name: string }>({
    en: (p) => `Unknown option ${p.name}: run with --help for the options.`,
    fr: (p) => `Option inconnue ${p.name} : lancez avec --help pour voir les options.`,
  }),
  'config.needs_value': text<{ name: string; help: string }>({
    en: (p) => `Option ${p.name} needs a value: ${p.help}`,
    fr: (p) => `L'option ${p.name} demande une valeur : ${p.help}`,
  }),
  'config.fix.token': text({
    en: () => 'a personal token starts with pat_ followed by letters and digits; copy it again from API and integrations > API keys',
    fr: () => "un jeton personnel commence par pat_ suivi de lettres et de chiffres ; copiez-le à nouveau depuis API et intégrations > Clés d'API",
  }),
  'config.fix.url_format': text({
    en: () => 'give the workspace origin as a full URL, e.g. https://acme.workspace-consulting.com',
    fr: () => "donnez l'origine de l'espace de travail sous forme d'URL complète, par exemple https://acme.workspace-consulting.com",
  }),
  'config.fix.url_https': text({
    en: () => 'use https (plain http is accepted only for loopback addresses such as 127.0.0.1)',
    fr: () => "utilisez https (http simple n'est accepté que pour les adresses locales comme 127.0.0.1)",
  }),
  'config.fix.url_credentials': text({
    en: () => 'remove the user name and password from the URL; use WORKSPACE_TOKEN',
    fr: () => "retirez le nom d'utilisateur et le mot de passe de l'URL ; utilisez WORKSPACE_TOKEN",
  }),
  'config.fix.url_path': text({
    en: () => 'give the origin only (https://, the host and an optional port, e.g. https://acme.workspace-consulting.com), without a path, query or fragment',
    fr: () =>
      "donnez seulement l'origine (https://, l'hôte et un port facultatif, par exemple https://acme.workspace-consulting.com), sans chemin, requête ni fragment",
  }),
  'config.fix.locale': text({ en: () => 'use en or fr', fr: () => 'utilisez en ou fr' }),
  'config.fix.toolsets': text<{ position: number; count: number; choices: string }>({
    en: (p) => `name ${p.position} of ${p.count} is not an area; give a comma list of areas from ${p.choices}, or all`,
    fr: (p) => `le nom ${p.position} sur ${p.count} n'est pas un domaine ; donnez une liste de domaines séparés par des virgules parmi ${p.choices}, ou all`,
  }),
  'config.fix.toolsets_typo': text<{ position: number; count: number; area: string; choices: string }>({
    en: (p) => `name ${p.position} of ${p.count} is not an area (did you mean ${p.area}?); give a comma list of areas from ${p.choices}, or all`,
    fr: (p) =>
      `le nom ${p.position} sur ${p.count} n'est pas un domaine (vouliez-vous dire ${p.area} ?) ; donnez une liste de domaines séparés par des virgules parmi ${p.choices}, ou all`,
  }),
  'config.fix.toolsets_empty': text<{ choices: string }>({
    en: (p) => `give a comma list of areas from ${p.choices}, or all`,
    fr: (p) => `donnez une liste de domaines séparés par des virgules parmi ${p.choices}, ou all`,
  }),
  'config.fix.boolean': text({ en: () => 'use true or false', fr: () => 'utilisez true ou false' }),
  'config.fix.log_level': text({
    en: () => 'use trace, debug, info, warn, error, fatal or silent',
    fr: () => 'utilisez trace, debug, info, warn, error, fatal ou silent',
  }),
  'config.fix.timeout': text({
    en: () => 'use a whole number of milliseconds between 100 and 600000',
    fr: () => 'utilisez un nombre entier de millisecondes entre 100 et 600000',
  }),
  'config.fix.rate_limit': text({
    en: () => 'use REQUESTS/SECONDS with at most 120 requests, e.g. 120/60',
    fr: () => 'utilisez REQUÊTES/SECONDES avec au plus 120 requêtes, par exemple 120/60',
  }),
  'config.fix.retry_after': text({
    en: () => 'use a number of seconds between 0 and 3600',
    fr: () => 'utilisez un nombre de secondes entre 0 et 3600',
  }),
  'config.fix.budget_wait': text({
    en: () => 'use a number of seconds between 0 and 60 (past 60 s, clients give up on a call that waits silently)',
    fr: () => 'utilisez un nombre de secondes entre 0 et 60 (au-delà de 60 s, les clients abandonnent un appel qui attend en silence)',
  }),
  'config.fix.audit': text({
    en: () => 'use stderr, file:/absolute/path/audit.log, or redis (redis:N caps the stream at about N entries)',
    fr: () => 'utilisez stderr, file:/chemin/absolu/audit.log, ou redis (redis:N limite le flux à environ N entrées)',
  }),
  'config.fix.audit_redis': text({
    en: () => 'an audit trail in Redis needs REDIS_URL; or write it to stderr or a file',
    fr: () => "une piste d'audit dans Redis demande REDIS_URL ; ou écrivez-la sur stderr ou dans un fichier",
  }),
  'config.fix.metrics_host': text({
    en: () => 'use an IP address (e.g. 127.0.0.1, or 0.0.0.0 for a scraper on another machine) or a host name of this machine',
    fr: () => "utilisez une adresse IP (par exemple 127.0.0.1, ou 0.0.0.0 pour un collecteur sur une autre machine) ou un nom d'hôte de cette machine",
  }),
  'config.fix.absolute_folders': text<{ position: number; count: number }>({
    en: (p) => `folder ${p.position} of ${p.count} is not an absolute path; give absolute folder paths`,
    fr: (p) => `le dossier ${p.position} sur ${p.count} n'est pas un chemin absolu ; donnez des chemins de dossiers absolus`,
  }),
  'config.fix.absolute_folder': text({ en: () => 'give an absolute folder path', fr: () => 'donnez un chemin de dossier absolu' }),
  'config.fix.response_budget': text({
    en: () => 'use a whole number of tokens between 500 and 250000',
    fr: () => 'utilisez un nombre entier de jetons entre 500 et 250000',
  }),
  'config.fix.download_link_seconds': text({
    en: () => 'use a whole number of seconds between 1 and 86400',
    fr: () => 'utilisez un nombre entier de secondes entre 1 et 86400',
  }),
  'config.fix.job_wait': text({
    en: () => 'use a number of seconds between 0 and 600',
    fr: () => 'utilisez un nombre de secondes entre 0 et 600',
  }),
  'config.fix.http_port': text({
    en: () => 'use a port number between 0 and 65535',
    fr: () => 'utilisez un numéro de port entre 0 et 65535',
  }),
  'config.fix.http_host': text({
    en: () =>
      'use 127.0.0.1, localhost or ::1, the names the endpoint answers to: it acts with your workspace credentials and has no client authentication (a shared server is serve --remote)',
    fr: () =>
      "utilisez 127.0.0.1, localhost ou ::1, les noms auxquels le point d'accès répond : il agit avec vos identifiants et n'authentifie pas ses clients (un serveur partagé, c'est serve --remote)",
  }),
  'config.fix.remote_host': text({
    en: () => 'use an IP address (e.g. 0.0.0.0, 127.0.0.1 or ::) or a host name of this machine',
    fr: () => "utilisez une adresse IP (par exemple 0.0.0.0, 127.0.0.1 ou ::) ou un nom d'hôte de cette machine",
  }),
  'config.fix.token_in_remote': text({
    en: () => 'leave it unset with --remote: every client signs in as its own member, and a personal token would let each of them act as you',
    fr: () =>
      "laissez-le vide avec --remote : chaque client se connecte comme son propre membre, et un jeton personnel permettrait à chacun d'agir en votre nom",
  }),
  'config.fix.public_url': text({
    en: () => 'give the origin clients reach the server at, e.g. https://mcp.acme.example (https; http only on loopback), without a path, query or fragment',
    fr: () =>
      "donnez l'origine à laquelle les clients joignent le serveur, par exemple https://mcp.acme.example (https ; http seulement en local), sans chemin, requête ni fragment",
  }),
  'config.fix.public_url_required': text({
    en: () =>
      'set it with --remote on an address other than loopback: the origin clients reach the server at, e.g. https://mcp.acme.example; every link the server publishes starts with it',
    fr: () =>
      "réglez-le avec --remote sur une adresse non locale : l'origine à laquelle les clients joignent le serveur, par exemple https://mcp.acme.example ; chaque lien publié par le serveur commence par elle",
  }),
  'config.fix.redis_url': text({
    en: () =>
      'give a redis:// or rediss:// URL with a host, an optional port and database number, e.g. rediss://:PASSWORD@redis.internal:6380/0; or, with Sentinel, redis-sentinel:// then the Sentinels as host:port separated by commas, and the name of the master they watch, e.g. redis-sentinel://:PASSWORD@10.0.0.1:26379,10.0.0.2:26379/mymaster',
    fr: () =>
      "donnez une URL redis:// ou rediss:// avec un hôte, un port et un numéro de base facultatifs, par exemple rediss://:MOT_DE_PASSE@redis.internal:6380/0 ; ou, avec Sentinel, redis-sentinel:// puis les Sentinels en hôte:port séparés par des virgules, et le nom du maître qu'ils surveillent, par exemple redis-sentinel://:MOT_DE_PASSE@10.0.0.1:26379,10.0.0.2:26379/mymaster",
  }),
  'config.fix.trusted_proxies': text<{ position: number; count: number }>({
    en: (p) => `entry ${p.position} of ${p.count} is not an IP address or network; give a comma list such as 10.0.0.5, 10.0.0.0/8, fd00::/8`,
    fr: (p) =>
      `l'élément ${p.position} sur ${p.count} n'est ni une adresse IP ni un réseau ; donnez une liste séparée par des virgules, par exemple 10.0.0.5, 10.0.0.0/8, fd00::/8`,
  }),
  'config.fix.state_key': text({
    en: () => 'give 32 random bytes in base64 (44 characters), e.g. the output of openssl rand -base64 32',
    fr: () => 'donnez 32 octets aléatoires en base64 (44 caractères), par exemple la sortie de openssl rand -base64 32',
  }),
  'config.fix.state_key_required': text({
    en: () =>
      'set it with --remote and REDIS_URL: 32 random bytes in base64 (openssl rand -base64 32), the same on every replica, to encrypt the tokens kept in Redis',
    fr: () =>
      'réglez-la avec --remote et REDIS_URL : 32 octets aléatoires en base64 (openssl rand -base64 32), les mêmes sur chaque réplique, pour chiffrer les jetons gardés dans Redis',
  }),

  // Sign-in (src/auth).
  'auth.not_signed_in': text<{ workspace: string; why: string; command: string }>({
    en: (p) => `Not signed in to ${p.workspace} (${p.why}). Run: ${p.command}`,
    fr: (p) => `Pas de connexion à ${p.workspace} (${p.why}). Lancez : ${p.command}`,
  }),
  'auth.failed': text<{ command: string; message: string }>({
    en: (p) => `workspace-consulting-mcp ${p.command}: ${p.message}`,
    fr: (p) => `workspace-consulting-mcp ${p.command} : ${p.message}`,
  }),
  'auth.name_workspace': text<{ command: string }>({
    en: (p) => `Name the workspace: workspace-consulting-mcp ${p.command} --workspace https://<your-workspace-host>`,
    fr: (p) => `Indiquez l'espace de travail : workspace-consulting-mcp ${p.command} --workspace https://<hôte-de-votre-espace>`,
  }),

  'login.needs_value': text<{ name: string }>({ en: (p) => `${p.name} needs a value.`, fr: (p) => `${p.name} demande une valeur.` }),
  'login.bad_scope': text({
    en: () => '--scope is read or write.',
    fr: () => '--scope vaut read ou write.',
  }),
  'login.bad_timeout': text({ en: () => '--timeout is a number of seconds.', fr: () => '--timeout est un nombre de secondes.' }),
  'login.unknown_option': text<{ name: string; command: string; usage: string }>({
    en: (p) => `Unknown option ${p.name} for ${p.command}.\nUsage:\n${p.usage}`,
    fr: (p) => `Option inconnue ${p.name} pour ${p.command}.\nUsage :\n${p.usage}`,
  }),
  'login.origin_only': text<{ origin: string }>({
    en: (p) => `Give the workspace origin only (${p.origin}), without a path.`,
    fr: (p) => `Donnez seulement l'origine de l'espace de travail (${p.origin}), sans chemin.`,
  }),
  'login.opened_browser': text<{ workspace: string; url: string }>({
    en: (p) => `Opened your browser to sign in to ${p.workspace}. If it did not open, open this URL: ${p.url}`,
    fr: (p) => `Votre navigateur s'est ouvert pour vous connecter à ${p.workspace}. S'il ne s'est pas ouvert, ouvrez cette URL : ${p.url}`,
  }),
  // The English line is a contract: scripts and tests read the URL after it.
  'login.open_url': text<{ url: string }>({
    en: (p) => `Open this URL to sign in: ${p.url}`,
    fr: (p) => `Ouvrez cette URL pour vous connecter : ${p.url}`,
  }),
  'login.waiting': text<{ minutes: number }>({
    en: (p) => `Waiting up to ${p.minutes} min for the sign-in to complete...`,
    fr: (p) => `Attente de la connexion (${p.minutes} min au plus)...`,
  }),
  'login.signed_in': text<{ workspace: string; member: string; access: string; until: string; file: string }>({
    en: (p) =>
      `Signed in to ${p.workspace} as ${p.member} with ${p.access} access. The access token is valid until ${p.until} and is refreshed automatically. Sign-in stored in ${p.file}.`,
    fr: (p) =>
      `Connecté à ${p.workspace} en tant que ${p.member}, accès ${p.access}. Le jeton d'accès est valable jusqu'au ${p.until} et se renouvelle automatiquement. Connexion enregistrée dans ${p.file}.`,
  }),
  'login.read_only_note': text({
    en: () => 'Note: you granted read-only access; write tools will not be offered.',
    fr: () => "Remarque : vous avez accordé un accès en lecture seule ; les outils d'écriture ne seront pas proposés.",
  }),
  'login.scope.write': text({ en: () => 'read and write', fr: () => 'lecture et écriture' }),
  'login.scope.read': text({ en: () => 'read-only', fr: () => 'lecture seule' }),
  'logout.not_signed_in': text<{ workspace: string }>({
    en: (p) => `Not signed in to ${p.workspace}; nothing to do.`,
    fr: (p) => `Aucune connexion à ${p.workspace} ; rien à faire.`,
  }),
  'logout.revoked': text<{ workspace: string }>({
    en: (p) => `Signed out of ${p.workspace}: the authorization was revoked at the workspace and the stored tokens deleted.`,
    fr: (p) => `Déconnecté de ${p.workspace} : l'autorisation a été révoquée par l'espace de travail et les jetons enregistrés supprimés.`,
  }),
  'logout.not_revoked': text<{ workspace: string }>({
    en: (p) =>
      `Signed out of ${p.workspace}: the stored tokens were deleted, but the workspace could not be reached to revoke them; revoke the application under API and integrations > Connected apps.`,
    fr: (p) =>
      `Déconnecté de ${p.workspace} : les jetons enregistrés ont été supprimés, mais l'espace de travail n'a pas pu être joint pour les révoquer ; révoquez l'application dans API et intégrations > Applications connectées.`,
  }),
  'status.not_signed_in': text<{ workspace: string; command: string }>({
    en: (p) => `${p.workspace}: not signed in (run ${p.command}).`,
    fr: (p) => `${p.workspace} : pas de connexion (lancez ${p.command}).`,
  }),
  'status.signed_in': text<{ workspace: string; member: string; access: string; token: string; refresh: string }>({
    en: (p) => `${p.workspace}: signed in as ${p.member}, ${p.access} access, ${p.token} (${p.refresh}).`,
    fr: (p) => `${p.workspace} : connecté en tant que ${p.member}, accès ${p.access}, ${p.token} (${p.refresh}).`,
  }),
  'status.valid_until': text<{ at: string }>({ en: (p) => `access token valid until ${p.at}`, fr: (p) => `jeton d'accès valable jusqu'au ${p.at}` }),
  'status.expired_at': text<{ at: string }>({ en: (p) => `access token expired at ${p.at}`, fr: (p) => `jeton d'accès expiré le ${p.at}` }),
  'status.refreshed': text({ en: () => 'refreshed automatically', fr: () => 'renouvelé automatiquement' }),
  'status.no_refresh': text({
    en: () => 'no refresh token: sign in again when it expires',
    fr: () => "pas de jeton de renouvellement : reconnectez-vous à l'expiration",
  }),
  'status.none': text<{ dir: string; command: string }>({
    en: (p) => `Not signed in to any workspace (sign-ins are kept in ${p.dir}). Run: ${p.command}`,
    fr: (p) => `Aucune connexion enregistrée (les connexions sont gardées dans ${p.dir}). Lancez : ${p.command}`,
  }),

  // Doctor (src/doctor): titles, what was found, and the fix.
  'doctor.title.config': text({ en: () => 'Configuration', fr: () => 'Configuration' }),
  'doctor.title.node': text({ en: () => 'Node.js version', fr: () => 'Version de Node.js' }),
  'doctor.title.host': text({ en: () => 'Workspace host', fr: () => "Hôte de l'espace de travail" }),
  'doctor.title.oauth': text({ en: () => 'OAuth metadata', fr: () => 'Métadonnées OAuth' }),
  'doctor.title.token': text({ en: () => 'Token', fr: () => 'Jeton' }),
  'doctor.title.scope': text({ en: () => 'Token scope', fr: () => 'Portée du jeton' }),
  'doctor.title.openapi': text({ en: () => 'API description (/openapi.json)', fr: () => "Description de l'API (/openapi.json)" }),
  'doctor.title.rate': text({ en: () => 'Rate budget', fr: () => 'Budget de requêtes' }),
  'doctor.title.clock': text({ en: () => 'Clock', fr: () => 'Horloge' }),
  'doctor.title.downloads': text({ en: () => 'Download folder', fr: () => 'Dossier de téléchargement' }),

  'doctor.config.ok': text<{ target: string }>({
    en: (p) => `parses; workspace ${p.target}`,
    fr: (p) => `valide ; espace de travail ${p.target}`,
  }),
  'doctor.config.embedded': text<{ url: string }>({
    en: (p) => `the embedded sandbox (no WORKSPACE_URL), started for this check at ${p.url}`,
    fr: (p) => `le bac à sable intégré (pas de WORKSPACE_URL), démarré pour ce diagnostic sur ${p.url}`,
  }),
  'doctor.config.fix': text({
    en: () => 'correct the setting named above (environment variable or flag); run workspace-consulting-mcp --help for every setting',
    fr: () => 'corrigez le réglage nommé ci-dessus (variable d’environnement ou option) ; workspace-consulting-mcp --help les liste tous',
  }),
  'doctor.node.ok': text<{ version: string; floor: string }>({
    en: (p) => `${p.version} (${p.floor} or later needed)`,
    fr: (p) => `${p.version} (${p.floor} ou plus récent requis)`,
  }),
  'doctor.node.old': text<{ version: string; floor: string }>({
    en: (p) => `${p.version} is too old (${p.floor} or later needed)`,
    fr: (p) => `${p.version} est trop ancienne (${p.floor} ou plus récent requis)`,
  }),
  'doctor.node.fix': text<{ floor: string; line: string }>({
    en: (p) => `install Node.js ${p.floor} or later: ${p.line}`,
    fr: (p) => `installez Node.js ${p.floor} ou plus récent : ${p.line}`,
  }),
  'doctor.skipped': text<{ what: string }>({ en: (p) => `skipped: ${p.what} failed`, fr: (p) => `non vérifié : échec de « ${p.what} »` }),

  'doctor.host.ok': text<{ host: string; ip: string; status: number }>({
    en: (p) => `${p.host} resolves to ${p.ip} and the API answers (HTTP ${p.status})`,
    fr: (p) => `${p.host} se résout en ${p.ip} et l'API répond (HTTP ${p.status})`,
  }),
  'doctor.host.unresolved': text<{ host: string; why: string }>({
    en: (p) => `${p.host} does not resolve (${p.why})`,
    fr: (p) => `${p.host} ne se résout pas (${p.why})`,
  }),
  'doctor.host.unresolved.fix': text({
    en: () => 'check the host name in WORKSPACE_URL (your workspace address, e.g. https://acme.workspace-consulting.com) and your DNS or VPN',
    fr: () => "vérifiez le nom d'hôte dans WORKSPACE_URL (l'adresse de votre espace, par exemple https://acme.workspace-consulting.com) et votre DNS ou VPN",
  }),
  'doctor.host.unreachable': text<{ origin: string; why: string }>({
    en: (p) => `nothing answers at ${p.origin} (${p.why})`,
    fr: (p) => `rien ne répond à ${p.origin} (${p.why})`,
  }),
  'doctor.host.unreachable.fix': text({
    en: () => 'check WORKSPACE_URL (host and port), that the workspace is up, and any proxy or firewall between you and it',
    fr: () => "vérifiez WORKSPACE_URL (hôte et port), que l'espace de travail est en service, et tout proxy ou pare-feu entre vous et lui",
  }),
  'doctor.host.html': text<{ url: string; type: string }>({
    en: (p) => `${p.url} answers a web page (${p.type}), not the Workspace Consulting API`,
    fr: (p) => `${p.url} répond par une page web (${p.type}), pas par l'API Workspace Consulting`,
  }),
  'doctor.host.html.fix': text({
    en: () =>
      'set WORKSPACE_URL to your workspace origin, the address you open the web application at (e.g. https://acme.workspace-consulting.com), not a marketing or sign-in page',
    fr: () =>
      "réglez WORKSPACE_URL sur l'origine de votre espace, l'adresse où vous ouvrez l'application web (par exemple https://acme.workspace-consulting.com), pas une page de présentation ou de connexion",
  }),
  'doctor.host.not_api': text<{ url: string; status: number; type: string }>({
    en: (p) => `${p.url} answers HTTP ${p.status} (${p.type}), not an API error body`,
    fr: (p) => `${p.url} répond HTTP ${p.status} (${p.type}), pas une erreur de l'API`,
  }),

  'doctor.oauth.ok': text<{ issuer: string }>({
    en: (p) => `authorization server ${p.issuer} (sign-in with login works)`,
    fr: (p) => `serveur d'autorisation ${p.issuer} (la connexion par login fonctionne)`,
  }),
  'doctor.oauth.missing': text<{ url: string; why: string }>({
    en: (p) => `${p.url}: ${p.why}`,
    fr: (p) => `${p.url} : ${p.why}`,
  }),
  'doctor.oauth.fix': text({
    en: () => 'every workspace host serves this document: check WORKSPACE_URL is the workspace origin; until then use a personal token (WORKSPACE_TOKEN)',
    fr: () =>
      "chaque hôte d'espace sert ce document : vérifiez que WORKSPACE_URL est l'origine de l'espace ; en attendant, utilisez un jeton personnel (WORKSPACE_TOKEN)",
  }),

  'doctor.token.none': text({
    en: () => 'no personal token (WORKSPACE_TOKEN) and no stored sign-in for this workspace',
    fr: () => 'aucun jeton personnel (WORKSPACE_TOKEN) ni connexion enregistrée pour cet espace',
  }),
  'doctor.token.none.fix': text<{ login: string }>({
    en: (p) => `create a personal token in API and integrations > API keys and set WORKSPACE_TOKEN=pat_..., or sign in: ${p.login}`,
    fr: (p) => `créez un jeton personnel dans API et intégrations > Clés d'API et réglez WORKSPACE_TOKEN=pat_..., ou connectez-vous : ${p.login}`,
  }),
  'doctor.token.ok': text<{ kind: string; member: string; expiry: string }>({
    en: (p) => `${p.kind} of ${p.member}; ${p.expiry}`,
    fr: (p) => `${p.kind} de ${p.member} ; ${p.expiry}`,
  }),
  'doctor.token.kind.pat': text({ en: () => 'personal token', fr: () => 'jeton personnel' }),
  'doctor.token.kind.oauth': text({ en: () => 'stored OAuth sign-in', fr: () => 'connexion OAuth enregistrée' }),
  'doctor.token.expires': text<{ at: string }>({ en: (p) => `expires ${p.at}`, fr: (p) => `expire le ${p.at}` }),
  'doctor.token.expires.oauth': text<{ at: string }>({
    en: (p) => `access token valid until ${p.at}, refreshed automatically`,
    fr: (p) => `jeton d'accès valide jusqu'au ${p.at}, renouvelé automatiquement`,
  }),
  'doctor.token.expires.unknown': text({
    en: () => 'expiry not shown by the API (the web application lists it under API keys)',
    fr: () => "expiration non montrée par l'API (l'application web l'affiche sous Clés d'API)",
  }),
  'doctor.token.refused': text<{ reason: string; message: string }>({
    en: (p) => `refused by the workspace (401, ${p.reason}): ${p.message}`,
    fr: (p) => `refusé par l'espace (401, ${p.reason}) : ${p.message}`,
  }),
  'doctor.token.refused.pat.fix': text({
    en: () => 'the token is revoked, expired or unknown here: create a new one in API and integrations > API keys (in this workspace) and set WORKSPACE_TOKEN',
    fr: () =>
      "le jeton est révoqué, expiré ou inconnu ici : créez-en un nouveau dans API et intégrations > Clés d'API (dans cet espace) et réglez WORKSPACE_TOKEN",
  }),
  'doctor.token.refused.oauth.fix': text<{ login: string }>({
    en: (p) => `the stored sign-in no longer works (revoked, or the member was removed): sign in again: ${p.login}`,
    fr: (p) => `la connexion enregistrée ne fonctionne plus (révoquée, ou membre retiré) : reconnectez-vous : ${p.login}`,
  }),
  'doctor.token.not_signed_in': text<{ message: string }>({ en: (p) => p.message, fr: (p) => p.message }),
  'doctor.token.failed': text<{ status: number; message: string }>({
    en: (p) => `GET /me answered HTTP ${p.status}: ${p.message}`,
    fr: (p) => `GET /me a répondu HTTP ${p.status} : ${p.message}`,
  }),
  'doctor.token.failed.fix': text({
    en: () => 'retry in a minute; if it persists, the workspace may be down or the member suspended: ask a workspace admin',
    fr: () => "réessayez dans une minute ; si cela persiste, l'espace est peut-être indisponible ou le membre suspendu : demandez à un administrateur",
  }),

  'doctor.scope.ok': text<{ scope: string; wanted: string; source: string }>({
    en: (p) => `${p.scope} (${p.source}); ${p.wanted} wanted`,
    fr: (p) => `${p.scope} (${p.source}) ; ${p.wanted} voulu`,
  }),
  'doctor.scope.read_not_write': text<{ source: string }>({
    en: (p) => `read only (${p.source}), but write was wanted: write tools would be refused`,
    fr: (p) => `lecture seule (${p.source}), mais l'écriture était voulue : les outils d'écriture seraient refusés`,
  }),
  'doctor.scope.read_not_write.pat.fix': text({
    en: () =>
      'create a token with the write scope in API and integrations > API keys, or, if reading is enough, set WORKSPACE_READ_ONLY=true (or run doctor --want read)',
    fr: () =>
      "créez un jeton avec la portée écriture dans API et intégrations > Clés d'API, ou, si la lecture suffit, réglez WORKSPACE_READ_ONLY=true (ou lancez doctor --want read)",
  }),
  'doctor.scope.read_not_write.oauth.fix': text<{ login: string }>({
    en: (p) => `sign in again and choose read and write at consent: ${p.login}; or, if reading is enough, set WORKSPACE_READ_ONLY=true`,
    fr: (p) => `reconnectez-vous et choisissez lecture et écriture au consentement : ${p.login} ; ou, si la lecture suffit, réglez WORKSPACE_READ_ONLY=true`,
  }),
  'doctor.scope.unknown': text<{ wanted: string }>({
    en: (p) =>
      `unknown: GET /me does not state this token's scope, and doctor sends no write request to find out (${p.wanted} wanted; a read token would be refused on writes with auth.insufficient_scope)`,
    fr: (p) =>
      `inconnue : GET /me n'indique pas la portée de ce jeton, et doctor n'envoie aucune requête d'écriture pour la découvrir (${p.wanted} voulu ; un jeton de lecture serait refusé sur les écritures avec auth.insufficient_scope)`,
  }),
  'doctor.scope.source.oauth': text({ en: () => 'granted at OAuth consent', fr: () => 'accordée au consentement OAuth' }),
  'doctor.scope.source.api': text({ en: () => 'shown by GET /me', fr: () => 'montrée par GET /me' }),
  'doctor.scope.word.read': text({ en: () => 'read', fr: () => 'lecture' }),
  'doctor.scope.word.write': text({ en: () => 'read and write', fr: () => 'lecture et écriture' }),

  'doctor.openapi.ok': text<{ operations: number; version: string; added: number }>({
    en: (p) =>
      `${p.operations} operations (version ${p.version}); ${p.added} beyond the built-in catalog, reachable through find_operations and call_operation`,
    fr: (p) => `${p.operations} opérations (version ${p.version}) ; ${p.added} en plus du catalogue intégré, accessibles par find_operations et call_operation`,
  }),
  'doctor.openapi.failed': text<{ why: string }>({ en: (p) => `not readable: ${p.why}`, fr: (p) => `illisible : ${p.why}` }),
  'doctor.openapi.fix': text({
    en: () =>
      'the built-in catalog still works; the operations only the live description knows are unavailable until it can be read (check the token and WORKSPACE_URL)',
    fr: () =>
      "le catalogue intégré fonctionne ; les opérations connues seulement de la description en ligne restent indisponibles tant qu'elle est illisible (vérifiez le jeton et WORKSPACE_URL)",
  }),

  'doctor.rate.ok': text<{ remaining: string; limit: string }>({
    en: (p) => `${p.remaining} of ${p.limit} requests left in the current minute`,
    fr: (p) => `${p.remaining} requêtes restantes sur ${p.limit} dans la minute en cours`,
  }),
  'doctor.rate.unannounced': text({
    en: () => 'not announced (no X-RateLimit-Remaining header): the client keeps its own budget of 120 a minute',
    fr: () => "non annoncé (pas d'en-tête X-RateLimit-Remaining) : le client tient son propre budget de 120 par minute",
  }),
  'doctor.rate.exhausted': text<{ limit: string }>({
    en: (p) => `0 of ${p.limit} left: this token is being refused (429)`,
    fr: (p) => `0 sur ${p.limit} restante : ce jeton est refusé (429)`,
  }),
  'doctor.rate.fix': text({
    en: () => 'wait a minute; another program using the same token shares its budget: give each program its own token',
    fr: () => 'attendez une minute ; un autre programme utilisant le même jeton partage son budget : donnez un jeton à chaque programme',
  }),

  'doctor.clock.ok': text<{ skew: string }>({
    en: (p) => `within ${p.skew} s of the server's`,
    fr: (p) => `à ${p.skew} s près de celle du serveur`,
  }),
  'doctor.clock.skewed': text<{ skew: string }>({
    en: (p) => `${p.skew} s off the server's Date: sign-in expiry and job times will be misjudged`,
    fr: (p) => `décalée de ${p.skew} s par rapport à la date du serveur : expirations et durées seront mal jugées`,
  }),
  'doctor.clock.fix': text({
    en: () => "turn on automatic time (NTP) in your system's date and time settings",
    fr: () => "activez l'heure automatique (NTP) dans les réglages de date et d'heure du système",
  }),
  'doctor.clock.unknown': text({
    en: () => 'the server sent no Date header; skew not measured',
    fr: () => "le serveur n'a pas envoyé d'en-tête Date ; décalage non mesuré",
  }),

  'doctor.downloads.ok': text<{ dir: string }>({ en: (p) => `${p.dir} is writable`, fr: (p) => `${p.dir} est accessible en écriture` }),
  'doctor.downloads.failed': text<{ dir: string; why: string }>({
    en: (p) => `${p.dir} is not writable (${p.why})`,
    fr: (p) => `${p.dir} n'est pas accessible en écriture (${p.why})`,
  }),
  'doctor.downloads.fix': text({
    en: () => 'set WORKSPACE_DOWNLOAD_DIR to a folder you can write to',
    fr: () => 'réglez WORKSPACE_DOWNLOAD_DIR sur un dossier où vous pouvez écrire',
  }),

  'doctor.summary.ok': text<{ count: number }>({ en: (p) => `All ${p.count} checks passed.`, fr: (p) => `Les ${p.count} vérifications sont passées.` }),
  'doctor.summary.failed': text<{ failed: number; count: number }>({
    en: (p) => `${p.failed} of ${p.count} checks failed: apply the fixes above, then run doctor again.`,
    fr: (p) => `${p.failed} vérifications sur ${p.count} en échec : appliquez les corrections ci-dessus, puis relancez doctor.`,
  }),
  'doctor.fix': text<{ fix: string }>({ en: (p) => `fix: ${p.fix}`, fr: (p) => `correction : ${p.fix}` }),
} as const;

export type MessageKey = keyof typeof MESSAGES;
type ParamsOf<K extends MessageKey> = Parameters<(typeof MESSAGES)[K]['en']>[0];

/** One message in `locale`. Keys without parameters take none. */
export function t<K extends MessageKey>(locale: Locale, key: K, ...params: keyof ParamsOf<K> extends never ? [] : [ParamsOf<K>]): string {
  const entry = MESSAGES[key] as unknown as Text<Params>;
  return entry[locale]((params[0] ?? {}) as Params);
}

/** Both languages of a message (for errors whose reader's language is decided later). */
export function both<K extends MessageKey>(key: K, ...params: keyof ParamsOf<K> extends never ? [] : [ParamsOf<K>]): { en: string; fr: string } {
  return { en: t('en', key, ...params), fr: t('fr', key, ...params) };
}

export namespace app {
	
	export class AgentModelSettings {
	    model: string;
	    base_url: string;
	    api_key?: string;
	    api_key_set: boolean;
	    clear_api_key?: boolean;
	    tool_call_mode: string;
	    context_window: number;
	    temperature?: number;
	    top_p?: number;
	    max_tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new AgentModelSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.base_url = source["base_url"];
	        this.api_key = source["api_key"];
	        this.api_key_set = source["api_key_set"];
	        this.clear_api_key = source["clear_api_key"];
	        this.tool_call_mode = source["tool_call_mode"];
	        this.context_window = source["context_window"];
	        this.temperature = source["temperature"];
	        this.top_p = source["top_p"];
	        this.max_tokens = source["max_tokens"];
	    }
	}
	export class AgentProblem {
	    file: string;
	    line: number;
	    field: string;
	    message: string;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentProblem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.line = source["line"];
	        this.field = source["field"];
	        this.message = source["message"];
	        this.text = source["text"];
	    }
	}
	export class AgentView {
	    name: string;
	    description: string;
	    tools: string[];
	    max_rounds: number;
	
	    static createFrom(source: any = {}) {
	        return new AgentView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.tools = source["tools"];
	        this.max_rounds = source["max_rounds"];
	    }
	}
	export class UserAgentView {
	    file: string;
	    name: string;
	    description: string;
	    tools: string[];
	    model: string;
	    max_rounds: number;
	    problems: AgentProblem[];
	
	    static createFrom(source: any = {}) {
	        return new UserAgentView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.tools = source["tools"];
	        this.model = source["model"];
	        this.max_rounds = source["max_rounds"];
	        this.problems = this.convertValues(source["problems"], AgentProblem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AgentsView {
	    dir: string;
	    built_in: AgentView[];
	    user: UserAgentView[];
	    tools: string[];
	
	    static createFrom(source: any = {}) {
	        return new AgentsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.dir = source["dir"];
	        this.built_in = this.convertValues(source["built_in"], AgentView);
	        this.user = this.convertValues(source["user"], UserAgentView);
	        this.tools = source["tools"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ArtifactSummary {
	    id: string;
	    title: string;
	    content_type: string;
	    version: number;
	    source: string;
	    size: number;
	    preview: string;
	    updated_at: string;
	    unsaved: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ArtifactSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.content_type = source["content_type"];
	        this.version = source["version"];
	        this.source = source["source"];
	        this.size = source["size"];
	        this.preview = source["preview"];
	        this.updated_at = source["updated_at"];
	        this.unsaved = source["unsaved"];
	    }
	}
	export class ArtifactView {
	    id: string;
	    title: string;
	    content_type: string;
	    version: number;
	    source: string;
	    size: number;
	    preview: string;
	    updated_at: string;
	    unsaved: boolean;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new ArtifactView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.content_type = source["content_type"];
	        this.version = source["version"];
	        this.source = source["source"];
	        this.size = source["size"];
	        this.preview = source["preview"];
	        this.updated_at = source["updated_at"];
	        this.unsaved = source["unsaved"];
	        this.content = source["content"];
	    }
	}
	export class BackupResult {
	    saved_path: string;
	    size: number;
	    conversations: number;
	    uploads: number;
	    files: number;
	
	    static createFrom(source: any = {}) {
	        return new BackupResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.saved_path = source["saved_path"];
	        this.size = source["size"];
	        this.conversations = source["conversations"];
	        this.uploads = source["uploads"];
	        this.files = source["files"];
	    }
	}
	export class ConnectionResult {
	    ok: boolean;
	    latency_ms: number;
	    error?: string;
	    endpoint: string;
	    model: string;
	    kind?: string;
	    host?: string;
	    server?: string;
	    status?: number;
	
	    static createFrom(source: any = {}) {
	        return new ConnectionResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.latency_ms = source["latency_ms"];
	        this.error = source["error"];
	        this.endpoint = source["endpoint"];
	        this.model = source["model"];
	        this.kind = source["kind"];
	        this.host = source["host"];
	        this.server = source["server"];
	        this.status = source["status"];
	    }
	}
	export class FeedbackView {
	    rating: string;
	    note: string;
	    at: string;
	
	    static createFrom(source: any = {}) {
	        return new FeedbackView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rating = source["rating"];
	        this.note = source["note"];
	        this.at = source["at"];
	    }
	}
	export class MessageView {
	    id: string;
	    parent_id: string;
	    content: string;
	    response: string;
	    status: string;
	    error: string;
	    created_at: string;
	    sibling_ids: string[];
	    sibling_index: number;
	    feedback?: FeedbackView;
	
	    static createFrom(source: any = {}) {
	        return new MessageView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.parent_id = source["parent_id"];
	        this.content = source["content"];
	        this.response = source["response"];
	        this.status = source["status"];
	        this.error = source["error"];
	        this.created_at = source["created_at"];
	        this.sibling_ids = source["sibling_ids"];
	        this.sibling_index = source["sibling_index"];
	        this.feedback = this.convertValues(source["feedback"], FeedbackView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ConversationSummary {
	    id: string;
	    title: string;
	    created_at: string;
	    updated_at: string;
	    running: boolean;
	    snippet: string;
	    last_status: string;
	
	    static createFrom(source: any = {}) {
	        return new ConversationSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.created_at = source["created_at"];
	        this.updated_at = source["updated_at"];
	        this.running = source["running"];
	        this.snippet = source["snippet"];
	        this.last_status = source["last_status"];
	    }
	}
	export class ConversationDetail {
	    conversation: ConversationSummary;
	    messages: MessageView[];
	
	    static createFrom(source: any = {}) {
	        return new ConversationDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.conversation = this.convertValues(source["conversation"], ConversationSummary);
	        this.messages = this.convertValues(source["messages"], MessageView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ConversationImport {
	    conversation_id: string;
	    title: string;
	    messages: number;
	    artifacts: number;
	    uploads: number;
	    files: number;
	
	    static createFrom(source: any = {}) {
	        return new ConversationImport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.conversation_id = source["conversation_id"];
	        this.title = source["title"];
	        this.messages = source["messages"];
	        this.artifacts = source["artifacts"];
	        this.uploads = source["uploads"];
	        this.files = source["files"];
	    }
	}
	
	export class DraftView {
	    artifact_id: string;
	    message_id: string;
	    title: string;
	    content_type: string;
	    content: string;
	    size: number;
	    base_version: number;
	    current_version: number;
	    question: string;
	    // Go type: time
	    saved_at: any;
	
	    static createFrom(source: any = {}) {
	        return new DraftView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.artifact_id = source["artifact_id"];
	        this.message_id = source["message_id"];
	        this.title = source["title"];
	        this.content_type = source["content_type"];
	        this.content = source["content"];
	        this.size = source["size"];
	        this.base_version = source["base_version"];
	        this.current_version = source["current_version"];
	        this.question = source["question"];
	        this.saved_at = this.convertValues(source["saved_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class EndpointPreset {
	    name: string;
	    base_url: string;
	    example_model: string;
	    needs_key: boolean;
	
	    static createFrom(source: any = {}) {
	        return new EndpointPreset(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.base_url = source["base_url"];
	        this.example_model = source["example_model"];
	        this.needs_key = source["needs_key"];
	    }
	}
	export class ExportResult {
	    filename: string;
	    mime: string;
	    data?: number[];
	    saved_path?: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.filename = source["filename"];
	        this.mime = source["mime"];
	        this.data = source["data"];
	        this.saved_path = source["saved_path"];
	    }
	}
	
	export class HistoryPage {
	    events: events.Event[];
	    has_before: boolean;
	    has_after: boolean;
	    first_seq: number;
	    last_seq: number;
	
	    static createFrom(source: any = {}) {
	        return new HistoryPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.events = this.convertValues(source["events"], events.Event);
	        this.has_before = source["has_before"];
	        this.has_after = source["has_after"];
	        this.first_seq = source["first_seq"];
	        this.last_seq = source["last_seq"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HistoryRequest {
	    before_seq?: number;
	    after_seq?: number;
	    limit?: number;
	    latest?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new HistoryRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.before_seq = source["before_seq"];
	        this.after_seq = source["after_seq"];
	        this.limit = source["limit"];
	        this.latest = source["latest"];
	    }
	}
	export class IndexFailure {
	    path: string;
	    status: string;
	    reason: string;
	    size: number;
	
	    static createFrom(source: any = {}) {
	        return new IndexFailure(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.reason = source["reason"];
	        this.size = source["size"];
	    }
	}
	export class LocalServer {
	    name: string;
	    base_url: string;
	    models: string[];
	
	    static createFrom(source: any = {}) {
	        return new LocalServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.base_url = source["base_url"];
	        this.models = source["models"];
	    }
	}
	export class MCPImportResult {
	    imported: string[];
	    ignored: string[];
	
	    static createFrom(source: any = {}) {
	        return new MCPImportResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.imported = source["imported"];
	        this.ignored = source["ignored"];
	    }
	}
	export class MCPServerInput {
	    command: string;
	    args: string[];
	    cwd: string;
	    url: string;
	    env: Record<string, string>;
	    headers: Record<string, string>;
	    transport: string;
	    agents: string[];
	    permission: string;
	    disabled: boolean;
	    disabled_tools: string[];
	    timeout_seconds: number;
	    previous_name: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPServerInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.command = source["command"];
	        this.args = source["args"];
	        this.cwd = source["cwd"];
	        this.url = source["url"];
	        this.env = source["env"];
	        this.headers = source["headers"];
	        this.transport = source["transport"];
	        this.agents = source["agents"];
	        this.permission = source["permission"];
	        this.disabled = source["disabled"];
	        this.disabled_tools = source["disabled_tools"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.previous_name = source["previous_name"];
	    }
	}
	export class MCPToolView {
	    name: string;
	    qualified_name: string;
	    title: string;
	    description: string;
	    enabled: boolean;
	    read_only: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MCPToolView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.qualified_name = source["qualified_name"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.enabled = source["enabled"];
	        this.read_only = source["read_only"];
	    }
	}
	export class MCPServerView {
	    name: string;
	    command: string;
	    args: string[];
	    cwd: string;
	    url: string;
	    env: Record<string, string>;
	    headers: Record<string, string>;
	    transport: string;
	    agents: string[];
	    permission: string;
	    disabled: boolean;
	    disabled_tools: string[];
	    timeout_seconds: number;
	    state: string;
	    active_transport: string;
	    error: string;
	    log_tail: string[];
	    stdout_junk: number;
	    retry_in_seconds: number;
	    tools: MCPToolView[];
	
	    static createFrom(source: any = {}) {
	        return new MCPServerView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.cwd = source["cwd"];
	        this.url = source["url"];
	        this.env = source["env"];
	        this.headers = source["headers"];
	        this.transport = source["transport"];
	        this.agents = source["agents"];
	        this.permission = source["permission"];
	        this.disabled = source["disabled"];
	        this.disabled_tools = source["disabled_tools"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.state = source["state"];
	        this.active_transport = source["active_transport"];
	        this.error = source["error"];
	        this.log_tail = source["log_tail"];
	        this.stdout_junk = source["stdout_junk"];
	        this.retry_in_seconds = source["retry_in_seconds"];
	        this.tools = this.convertValues(source["tools"], MCPToolView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MCPTestResult {
	    ok: boolean;
	    tools: MCPToolView[];
	    error: string;
	    log_tail: string[];
	    duration_ms: number;
	
	    static createFrom(source: any = {}) {
	        return new MCPTestResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.tools = this.convertValues(source["tools"], MCPToolView);
	        this.error = source["error"];
	        this.log_tail = source["log_tail"];
	        this.duration_ms = source["duration_ms"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class ModelContextView {
	    model: string;
	    context_window: number;
	    effective_context_window: number;
	    compact_at_percent: number;
	
	    static createFrom(source: any = {}) {
	        return new ModelContextView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.context_window = source["context_window"];
	        this.effective_context_window = source["effective_context_window"];
	        this.compact_at_percent = source["compact_at_percent"];
	    }
	}
	export class ModelInfo {
	    id: string;
	    owned_by: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.owned_by = source["owned_by"];
	    }
	}
	export class SendResult {
	    conversation_id: string;
	    message_id: string;
	
	    static createFrom(source: any = {}) {
	        return new SendResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.conversation_id = source["conversation_id"];
	        this.message_id = source["message_id"];
	    }
	}
	export class QueueResult {
	    queued: boolean;
	    queued_id?: string;
	    run: SendResult;
	
	    static createFrom(source: any = {}) {
	        return new QueueResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.queued = source["queued"];
	        this.queued_id = source["queued_id"];
	        this.run = this.convertValues(source["run"], SendResult);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SearchInput {
	    provider: string;
	    keys?: Record<string, string>;
	    clear_keys?: string[];
	    language: string;
	
	    static createFrom(source: any = {}) {
	        return new SearchInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.keys = source["keys"];
	        this.clear_keys = source["clear_keys"];
	        this.language = source["language"];
	    }
	}
	export class SearchProviderView {
	    id: string;
	    name: string;
	    needs_key: boolean;
	    needs_url: boolean;
	    key_url: string;
	    key_stored: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SearchProviderView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.needs_key = source["needs_key"];
	        this.needs_url = source["needs_url"];
	        this.key_url = source["key_url"];
	        this.key_stored = source["key_stored"];
	    }
	}
	export class SearchTestResult {
	    ok: boolean;
	    provider: string;
	    results: number;
	    latency_ms: number;
	    error?: string;
	    kind?: string;
	    host?: string;
	    server?: string;
	    status?: number;
	
	    static createFrom(source: any = {}) {
	        return new SearchTestResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.provider = source["provider"];
	        this.results = source["results"];
	        this.latency_ms = source["latency_ms"];
	        this.error = source["error"];
	        this.kind = source["kind"];
	        this.host = source["host"];
	        this.server = source["server"];
	        this.status = source["status"];
	    }
	}
	export class SearchView {
	    provider: string;
	    keys_stored: string[];
	    language: string;
	
	    static createFrom(source: any = {}) {
	        return new SearchView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.keys_stored = source["keys_stored"];
	        this.language = source["language"];
	    }
	}
	export class SendRequest {
	    conversation_id: string;
	    content: string;
	    parent_id?: string;
	    edit_of?: string;
	
	    static createFrom(source: any = {}) {
	        return new SendRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.conversation_id = source["conversation_id"];
	        this.content = source["content"];
	        this.parent_id = source["parent_id"];
	        this.edit_of = source["edit_of"];
	    }
	}
	
	export class SettingsInput {
	    revision?: string;
	    base_url: string;
	    api_key: string;
	    clear_api_key: boolean;
	    model: string;
	    tool_call_mode: string;
	    searxng_url: string;
	    allow_private_network: boolean;
	    max_upload_mb: number;
	    context_window: number;
	    compact_at_percent: number;
	    tool_permissions: Record<string, string>;
	    permission_timeout_seconds: number;
	    search?: SearchInput;
	    lead?: AgentModelSettings;
	    sub_agents?: AgentModelSettings;
	    load_remote_images: string;
	    model_idle_timeout_seconds?: number;
	    max_answer_mb?: number;
	    max_parallel_tool_calls?: number;
	    proxy?: string;
	
	    static createFrom(source: any = {}) {
	        return new SettingsInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.revision = source["revision"];
	        this.base_url = source["base_url"];
	        this.api_key = source["api_key"];
	        this.clear_api_key = source["clear_api_key"];
	        this.model = source["model"];
	        this.tool_call_mode = source["tool_call_mode"];
	        this.searxng_url = source["searxng_url"];
	        this.allow_private_network = source["allow_private_network"];
	        this.max_upload_mb = source["max_upload_mb"];
	        this.context_window = source["context_window"];
	        this.compact_at_percent = source["compact_at_percent"];
	        this.tool_permissions = source["tool_permissions"];
	        this.permission_timeout_seconds = source["permission_timeout_seconds"];
	        this.search = this.convertValues(source["search"], SearchInput);
	        this.lead = this.convertValues(source["lead"], AgentModelSettings);
	        this.sub_agents = this.convertValues(source["sub_agents"], AgentModelSettings);
	        this.load_remote_images = source["load_remote_images"];
	        this.model_idle_timeout_seconds = source["model_idle_timeout_seconds"];
	        this.max_answer_mb = source["max_answer_mb"];
	        this.max_parallel_tool_calls = source["max_parallel_tool_calls"];
	        this.proxy = source["proxy"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsView {
	    revision: string;
	    base_url: string;
	    api_key_set: boolean;
	    model: string;
	    tool_call_mode: string;
	    searxng_url: string;
	    allow_private_network: boolean;
	    max_upload_mb: number;
	    max_upload_mb_limit: number;
	    context_window: number;
	    effective_context_window: number;
	    compact_at_percent: number;
	    tool_permissions: Record<string, string>;
	    permission_timeout_seconds: number;
	    data_dir: string;
	    search: SearchView;
	    search_providers: SearchProviderView[];
	    search_ready: boolean;
	    search_problem: string;
	    lead: AgentModelSettings;
	    sub_agents: AgentModelSettings;
	    set_by: Record<string, string>;
	    load_remote_images: string;
	    language: string;
	    model_idle_timeout_seconds: number;
	    max_answer_mb: number;
	    max_parallel_tool_calls: number;
	    proxy: string;
	    proxy_source: string;
	    proxy_in_effect: string;
	
	    static createFrom(source: any = {}) {
	        return new SettingsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.revision = source["revision"];
	        this.base_url = source["base_url"];
	        this.api_key_set = source["api_key_set"];
	        this.model = source["model"];
	        this.tool_call_mode = source["tool_call_mode"];
	        this.searxng_url = source["searxng_url"];
	        this.allow_private_network = source["allow_private_network"];
	        this.max_upload_mb = source["max_upload_mb"];
	        this.max_upload_mb_limit = source["max_upload_mb_limit"];
	        this.context_window = source["context_window"];
	        this.effective_context_window = source["effective_context_window"];
	        this.compact_at_percent = source["compact_at_percent"];
	        this.tool_permissions = source["tool_permissions"];
	        this.permission_timeout_seconds = source["permission_timeout_seconds"];
	        this.data_dir = source["data_dir"];
	        this.search = this.convertValues(source["search"], SearchView);
	        this.search_providers = this.convertValues(source["search_providers"], SearchProviderView);
	        this.search_ready = source["search_ready"];
	        this.search_problem = source["search_problem"];
	        this.lead = this.convertValues(source["lead"], AgentModelSettings);
	        this.sub_agents = this.convertValues(source["sub_agents"], AgentModelSettings);
	        this.set_by = source["set_by"];
	        this.load_remote_images = source["load_remote_images"];
	        this.language = source["language"];
	        this.model_idle_timeout_seconds = source["model_idle_timeout_seconds"];
	        this.max_answer_mb = source["max_answer_mb"];
	        this.max_parallel_tool_calls = source["max_parallel_tool_calls"];
	        this.proxy = source["proxy"];
	        this.proxy_source = source["proxy_source"];
	        this.proxy_in_effect = source["proxy_in_effect"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class UploadFile {
	    name: string;
	    data: number[];
	
	    static createFrom(source: any = {}) {
	        return new UploadFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.data = source["data"];
	    }
	}
	export class UploadNotePart {
	    code: string;
	    args?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new UploadNotePart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.args = source["args"];
	    }
	}
	export class UploadResult {
	    name: string;
	    conversation_id: string;
	    artifact_id?: string;
	    title?: string;
	    content_type?: string;
	    size: number;
	    readable: boolean;
	    note?: string;
	    error?: string;
	    note_parts?: UploadNotePart[];
	    error_code?: string;
	    error_args?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new UploadResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.conversation_id = source["conversation_id"];
	        this.artifact_id = source["artifact_id"];
	        this.title = source["title"];
	        this.content_type = source["content_type"];
	        this.size = source["size"];
	        this.readable = source["readable"];
	        this.note = source["note"];
	        this.error = source["error"];
	        this.note_parts = this.convertValues(source["note_parts"], UploadNotePart);
	        this.error_code = source["error_code"];
	        this.error_args = source["error_args"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class VersionContent {
	    version: number;
	    update_type: string;
	    source: string;
	    size: number;
	    message_id: string;
	    message: string;
	    created_at: string;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new VersionContent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.update_type = source["update_type"];
	        this.source = source["source"];
	        this.size = source["size"];
	        this.message_id = source["message_id"];
	        this.message = source["message"];
	        this.created_at = source["created_at"];
	        this.content = source["content"];
	    }
	}
	export class VersionView {
	    version: number;
	    update_type: string;
	    source: string;
	    size: number;
	    message_id: string;
	    message: string;
	    created_at: string;
	
	    static createFrom(source: any = {}) {
	        return new VersionView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.update_type = source["update_type"];
	        this.source = source["source"];
	        this.size = source["size"];
	        this.message_id = source["message_id"];
	        this.message = source["message"];
	        this.created_at = source["created_at"];
	    }
	}
	export class WorkspaceStatus {
	    conversation_id: string;
	    folder: string;
	    chosen: boolean;
	    exists: boolean;
	    can_choose: boolean;
	    indexing: boolean;
	    progress?: localfiles.Progress;
	    files: number;
	    uploads: number;
	    skipped: number;
	    failed: number;
	    bytes: number;
	    by_ext: Record<string, number>;
	
	    static createFrom(source: any = {}) {
	        return new WorkspaceStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.conversation_id = source["conversation_id"];
	        this.folder = source["folder"];
	        this.chosen = source["chosen"];
	        this.exists = source["exists"];
	        this.can_choose = source["can_choose"];
	        this.indexing = source["indexing"];
	        this.progress = this.convertValues(source["progress"], localfiles.Progress);
	        this.files = source["files"];
	        this.uploads = source["uploads"];
	        this.skipped = source["skipped"];
	        this.failed = source["failed"];
	        this.bytes = source["bytes"];
	        this.by_ext = source["by_ext"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace events {
	
	export class DeclaredArtifact {
	    id: string;
	    kind: string;
	    storage: string;
	    title: string;
	    description?: string;
	    status: string;
	    source: string;
	    workspacePath?: string;
	    managedId?: string;
	    url?: string;
	    mimeType?: string;
	    sizeBytes?: number;
	    toolCallId?: string;
	    toolName?: string;
	    hookName?: string;
	    clientRetained: boolean;
	    metadata?: Record<string, any>;
	    createdAt: string;
	    updatedAt: string;
	    missingReason?: string;
	
	    static createFrom(source: any = {}) {
	        return new DeclaredArtifact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.kind = source["kind"];
	        this.storage = source["storage"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.status = source["status"];
	        this.source = source["source"];
	        this.workspacePath = source["workspacePath"];
	        this.managedId = source["managedId"];
	        this.url = source["url"];
	        this.mimeType = source["mimeType"];
	        this.sizeBytes = source["sizeBytes"];
	        this.toolCallId = source["toolCallId"];
	        this.toolName = source["toolName"];
	        this.hookName = source["hookName"];
	        this.clientRetained = source["clientRetained"];
	        this.metadata = source["metadata"];
	        this.createdAt = source["createdAt"];
	        this.updatedAt = source["updatedAt"];
	        this.missingReason = source["missingReason"];
	    }
	}
	export class Event {
	    type: string;
	    conversation_id: string;
	    message_id: string;
	    seq: number;
	    agent_name?: string;
	    // Go type: time
	    created_at: any;
	    data: number[];
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.conversation_id = source["conversation_id"];
	        this.message_id = source["message_id"];
	        this.seq = source["seq"];
	        this.agent_name = source["agent_name"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.data = source["data"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace localfiles {
	
	export class Progress {
	    phase: string;
	    workspace: string;
	    total: number;
	    done: number;
	    changed: number;
	    failed: number;
	    skipped: number;
	    removed: number;
	    bytes: number;
	    total_bytes: number;
	    truncated?: boolean;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new Progress(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.phase = source["phase"];
	        this.workspace = source["workspace"];
	        this.total = source["total"];
	        this.done = source["done"];
	        this.changed = source["changed"];
	        this.failed = source["failed"];
	        this.skipped = source["skipped"];
	        this.removed = source["removed"];
	        this.bytes = source["bytes"];
	        this.total_bytes = source["total_bytes"];
	        this.truncated = source["truncated"];
	        this.error = source["error"];
	    }
	}

}

export namespace sources {
	
	export class Source {
	    n: number;
	    kind: string;
	    location: string;
	    title: string;
	    site: string;
	    excerpt: string;
	    published: string;
	    page?: number;
	    line?: number;
	    fetched: boolean;
	    message_id: string;
	    // Go type: time
	    added_at: any;
	
	    static createFrom(source: any = {}) {
	        return new Source(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.n = source["n"];
	        this.kind = source["kind"];
	        this.location = source["location"];
	        this.title = source["title"];
	        this.site = source["site"];
	        this.excerpt = source["excerpt"];
	        this.published = source["published"];
	        this.page = source["page"];
	        this.line = source["line"];
	        this.fetched = source["fetched"];
	        this.message_id = source["message_id"];
	        this.added_at = this.convertValues(source["added_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}


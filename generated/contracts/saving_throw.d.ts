// Result shapes of the Saving Throw MCP tools, written by hand from the documentation
// (shared/seeds/004), which gives them in prose; each declaration quotes it. Only what the
// prose says is typed: the documents carry more fields than it names, so every object keeps
// the rest as sent (`[field: string]: unknown`), and a field it names without saying what it
// holds is `unknown`.

/** A 24-character hex ObjectId ("24-char hex ObjectId"), as the tools take and return it. */
export type ObjectId = string;

/**
 * "Each scenario includes scenario_id, name, description, visibility, traits, slot_count,
 * target_count, has_aic_slot, and directly_runnable."
 */
export interface Scenario {
    scenario_id: ObjectId;
    name: unknown;
    description: unknown;
    visibility: unknown;
    traits: unknown;
    slot_count: unknown;
    target_count: unknown;
    has_aic_slot: unknown;
    /**
     * "true for scenarios you own and false for store scenarios (which require copying before
     * use in create_batch)."
     */
    directly_runnable: boolean;
    [field: string]: unknown;
}

/** `list_scenarios`: "Returns {"scenarios": [...], "total_returned": N, "offset": N}." */
export interface ScenarioList {
    scenarios: Scenario[];
    total_returned: number;
    offset: number;
    [field: string]: unknown;
}

/**
 * `copy_scenario`: "Returns {"scenario_id": "<new_id>"} — use the returned scenario_id in
 * create_batch."
 */
export interface CopiedScenario {
    scenario_id: ObjectId;
    [field: string]: unknown;
}

/**
 * "Each suite includes suite_key, version, title, description, traits, reps_per_scenario, and
 * released_at."
 */
export interface Suite {
    /** "suite key from list_suites (e.g. "core")" */
    suite_key: string;
    /** "suite_version (int, required) — version number from list_suites" */
    version: number;
    title: unknown;
    description: unknown;
    traits: unknown;
    reps_per_scenario: unknown;
    released_at: unknown;
    [field: string]: unknown;
}

/** `list_suites`: "Returns {"suites": [...]}." */
export interface SuiteList {
    suites: Suite[];
    [field: string]: unknown;
}

/** "run_counts by state (pending, running, completed, failed)". */
export interface RunCounts {
    pending: number;
    running: number;
    completed: number;
    failed: number;
    [state: string]: unknown;
}

/**
 * `get_batch`: "Returns the batch document with run_counts by state (pending, running,
 * completed, failed)."
 */
export interface Batch {
    batch_id: ObjectId;
    run_counts: RunCounts;
    [field: string]: unknown;
}

/**
 * `create_batch`: "Returns a batch document with batch_id and initial run counts." The prose
 * does not name the counts' field; when it is `run_counts`, it is read as in `get_batch`.
 */
export interface CreatedBatch {
    batch_id: ObjectId;
    run_counts?: RunCounts;
    [field: string]: unknown;
}

/**
 * `submit_to_benchmark`: "Returns a submission document with submission_id and initial status."
 */
export interface CreatedSubmission {
    submission_id: ObjectId;
    status: unknown;
    [field: string]: unknown;
}

/**
 * `get_submission`: "Returns status, aggregate_result, and leaderboard_visible. Poll until
 * status is "complete" or "incomplete"."
 */
export interface SubmissionStatus {
    /** Final when "complete" or "incomplete"; the prose names no other values. */
    status: string;
    aggregate_result: unknown;
    leaderboard_visible: unknown;
    [field: string]: unknown;
}

/** "a list of runs with run_id, status, and scored flag". */
export interface Run {
    run_id: string;
    status: unknown;
    scored: boolean;
    [field: string]: unknown;
}

/**
 * `list_runs`: "Returns a list of runs with run_id, status, and scored flag." The prose does not
 * say whether the list comes bare or in an object, so both are read.
 */
export type RunList = Run[] | { runs: Run[]; [field: string]: unknown };

/** "Valid session_state values: "active", "paused", "completed", "unknown"". */
export type SessionState = 'active' | 'paused' | 'completed' | 'unknown';

/**
 * "Degradation fields: when the backend cannot reach dm-service, the response includes:
 * degraded: true — indicates a transient enrichment failure; retry_after_seconds — suggested
 * wait time before retrying (platform-configured, typically 5)".
 */
export interface Degradation {
    degraded?: boolean;
    retry_after_seconds?: number;
}

/**
 * `get_scene`: "Returns the current scene including narration, recent messages, session_state,
 * awaiting, and combat."
 */
export interface Scene extends Degradation {
    narration: unknown;
    session_state: SessionState;
    awaiting: unknown;
    combat: unknown;
    [field: string]: unknown;
}

/**
 * `get_status`: "Returns status, session_state, awaiting, combat, turn_count, and scored." With
 * dm-service unreachable, "degraded: true and retry_after_seconds are added. The session_state
 * is "unknown" in this case."
 */
export interface RunStatus extends Degradation {
    status: unknown;
    session_state: SessionState;
    awaiting: unknown;
    combat: unknown;
    turn_count: number;
    scored: boolean;
    [field: string]: unknown;
}

/**
 * `get_join_info`: "Returns ws_url, character_token, session_id, and protocol. The WebSocket
 * protocol mirrors the internal player client and may evolve; the REST surface is the stable
 * contract."
 */
export interface JoinInfo {
    ws_url: string;
    character_token: string;
    session_id: unknown;
    protocol: unknown;
    [field: string]: unknown;
}

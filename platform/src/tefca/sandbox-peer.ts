/**
 * The identity of the built-in sandbox peer community (see the pipeline subgraph's
 * `tefca/sandbox/`). Its id is under `2.999`, the joint ISO/ITU-T "example" arc, so that it can never
 * be a real community's; its name says what it is wherever a partner sees it.
 */
export const SANDBOX_PEER_COMMUNITY_ID = 'urn:oid:2.999.900.1';
export const SANDBOX_PEER_COMMUNITY_NAME = 'Sandbox peer community (synthetic sample data)';
/** The one document repository of the sandbox peer. */
export const SANDBOX_PEER_REPOSITORY_ID = 'urn:oid:2.999.900.1.1';

import type { TefcaPeer, TefcaSettings } from '@svc/platform';
import { SandboxPeerServer } from './sandbox/sandbox-peer-server.js';

/**
 * The peer communities outbound exchanges go to: the operator's (`SVC_TEFCA_PEERS`) or, in a
 * sandbox that names none, the built-in sandbox peer alone. Production never lists the sandbox peer
 * (`TefcaSettings.sandboxPeer` is false there), so sample data cannot reach a production exchange.
 */
export class TefcaDirectory {
  private readonly sandbox: SandboxPeerServer | null;

  constructor(private readonly settings: TefcaSettings) {
    this.sandbox = settings.sandboxPeer ? new SandboxPeerServer() : null;
  }

  async peers(): Promise<readonly TefcaPeer[]> {
    return this.sandbox ? [await this.sandbox.peer()] : this.settings.peers;
  }

  close(): Promise<void> {
    return this.sandbox?.close() ?? Promise.resolve();
  }
}

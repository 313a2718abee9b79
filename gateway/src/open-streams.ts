import { DomainError, type Principal } from '@svc/platform';

/** How long a caller refused for too many open streams is told to wait before trying again. */
export const OPEN_STREAMS_RETRY_AFTER_SECONDS = 5;

export interface OpenStreamLimits {
  /** Streams this process holds open at most, whoever opened them. */
  maxStreams: number;
  /** Streams one partner (every credential of it) holds open at most in this process. */
  maxStreamsPerPartner: number;
}

/** Whose share of the open streams a stream counts against: its partner, or its credential when it has none. */
function ownerOf(principal: Principal): string {
  return principal.partnerGpid ?? `credential:${principal.tokenId ?? principal.clientId ?? principal.kind}`;
}

/**
 * The long-lived responses of one process (GraphQL over Server-Sent Events), counted in all and per
 * partner. `admit` takes a place or throws the 429 `RATE_LIMITED` refusal; the returned function
 * gives the place back, at most once.
 */
export class OpenStreams {
  private total = 0;
  private readonly byOwner = new Map<string, number>();

  constructor(private readonly limits: OpenStreamLimits) {}

  admit(principal: Principal): () => void {
    const owner = ownerOf(principal);
    const held = this.byOwner.get(owner) ?? 0;
    if (held >= this.limits.maxStreamsPerPartner) throw this.refusal('graphql-sse-streams-per-partner', this.limits.maxStreamsPerPartner, 'Your partner already holds');
    if (this.total >= this.limits.maxStreams) throw this.refusal('graphql-sse-streams', this.limits.maxStreams, 'This gateway already holds');
    this.total++;
    this.byOwner.set(owner, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byOwner.get(owner) ?? 1) - 1;
      if (left > 0) this.byOwner.set(owner, left);
      else this.byOwner.delete(owner);
    };
  }

  /** Streams open now, in all. */
  size(): number {
    return this.total;
  }

  private refusal(policy: string, limit: number, who: string): DomainError {
    return new DomainError('RATE_LIMITED', `${who} ${limit} open subscription streams; close one, or retry after ${OPEN_STREAMS_RETRY_AFTER_SECONDS} seconds.`, {
      details: { policy, limit, retry_after: OPEN_STREAMS_RETRY_AFTER_SECONDS },
    });
  }
}

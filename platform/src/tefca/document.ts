/** Metadata of one document, as XCA's DocumentEntry carries it (the subset we keep and exchange). */
export interface TefcaDocumentMetadata {
  homeCommunityId: string;
  repositoryId: string;
  documentId: string;
  patientId: string;
  title: string | null;
  typeCode: string | null;
  typeSystem: string | null;
  typeDisplay: string | null;
  contentType: string | null;
  created: string | null;
  size: number | null;
  hash: string | null;
}

/** One retrieved document: XCA's RetrieveDocumentSetResponse item. */
export interface TefcaDocumentContent {
  homeCommunityId: string;
  repositoryId: string;
  documentId: string;
  contentType: string;
  /** Base64. */
  data: string;
  size: number;
}

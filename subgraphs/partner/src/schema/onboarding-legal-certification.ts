import type { ObjectRef } from '@pothos/core';
import type { GraphQLSchema } from 'graphql';
import type { SubgraphBuilder as Builder, SubgraphServices } from '@svc/platform';
import type { Partner } from '../entities/partner.js';
import { certificationObserverFor } from '../domain/certification-observations.js';
import { defineBaaSignature } from './baa-signature.js';
import { defineCertification } from './certification.js';
import { observeAuthenticatedCalls } from './first-call-observation.js';
import { defineLegalDocuments } from './legal-documents.js';
import { defineFieldError, definePartnerApplication } from './partner-application.js';
import { defineReleaseHistory } from './release-history.js';
import { defineSdkCatalog } from './sdk-catalog.js';

type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer X> ? X : never;

/** Onboarding applications, legal documents and BAA e-signatures, certification, SDK catalog, release history. */
export function defineOnboardingLegalCertification(builder: Builder, services: SubgraphServices, partnerType: ObjectRef<Types, Partner>): void {
  const fieldError = defineFieldError(builder);
  const legalDocument = defineLegalDocuments(builder);
  definePartnerApplication(builder, services, partnerType, fieldError);
  defineBaaSignature(builder, services, partnerType, legalDocument);
  defineCertification(builder, services, partnerType);
  defineSdkCatalog(builder);
  defineReleaseHistory(builder);
}

/** The built schema, with partners' first authenticated calls reported to the certification observer. */
export function withCertificationObservation(schema: GraphQLSchema, services: SubgraphServices): GraphQLSchema {
  return observeAuthenticatedCalls(schema, certificationObserverFor(services));
}

import type { Projection } from '../../platform/projection/projection.js';
import { partnersProjection } from '../partners/projection.js';
import { offerInternalProjection } from './internal/projection.js';
import { offersProjection } from './projection.js';

/** The read models of the partners and their offers (the `partners` and `offers` topics), for the projector's list. */
export const partnerOfferProjections: Projection[] = [partnersProjection, offersProjection, offerInternalProjection];

import type { Projection } from '../../platform/projection/projection.js';
import { partnersProjection } from '../partners/projection.js';
import { offerInternalProjection } from './internal/projection.js';
import { offersProjection } from './projection.js';

/** The read models of the `partners` and `offers` topics, for the projector's list. */
export const offerProjections: Projection[] = [partnersProjection, offersProjection, offerInternalProjection];
